import { isDeepStrictEqual } from 'node:util';
import type { AnswerBody, SpindleClient } from '@spindle/client';
import type { HumanRequest, RunEvent } from '@spindle/contracts';
import type { Example, ExampleAnswer } from './example-file';
import { inputWithFiles, type UploadFile } from './example-files';
import type { DeployModule } from './deploy-module';

export interface ExampleOutcome {
  runId: string;
  status: 'completed' | 'failed' | 'canceled';
  error?: { code: string; message: string };
  output?: Record<string, unknown>;
  requests: Array<{ node: string; kind: 'input' | 'approval'; status: string }>;
  /** The run's scores by name, when the example expects some. */
  scores?: Record<string, unknown>;
  /** What differs from the example's `expect`; empty when it reached its expected outcome. */
  mismatches: string[];
}

/** How often an answer waits for its request to reach the approval service. */
const POLL_MS = 150;

/** Saves what the example needs and its workflow, runs it (answering as the example says) to its end, and compares. */
export async function runExample(
  spindle: SpindleClient,
  example: Example,
  opts: { timeoutMs?: number; upload?: UploadFile; deploy?: DeployModule } = {},
): Promise<ExampleOutcome> {
  for (const [name, spec] of Object.entries(example.agents)) await spindle.agents.put(name, spec);
  for (const [name, def] of Object.entries(example.workflows)) await spindle.workflows.put(name, def);
  for (const [name, kb] of Object.entries(example.knowledgeBases)) {
    await spindle.knowledgeBases.put(name, kb.base as never);
    for (const doc of kb.documents) {
      const added = await spindle.knowledgeBases.addDocument(name, doc);
      if (added.status !== 'ready') throw new Error(`the example's document ${doc.source} is ${added.status}, not ingested`);
    }
  }
  await saveWorkflow(spindle, example, opts.deploy);
  const { runId } = await spindle.runs.start(example.name, {
    input: (await inputWithFiles(example.input, example.files, example.dir, opts.upload)) ?? {},
    ...(example.parameters !== undefined ? { parameters: example.parameters as Record<string, unknown> } : {}),
  });
  const terminal = await follow(spindle, runId, [...example.answers], opts.timeoutMs ?? 60_000);
  const requests = (await spindle.runs.requests(runId)).requests.map((r) => ({ node: r.nodeId, kind: r.kind, status: r.status }));
  const outcome: Omit<ExampleOutcome, 'mismatches'> = {
    runId,
    status: terminal.type === 'run.completed' ? 'completed' : terminal.type === 'run.failed' ? 'failed' : 'canceled',
    ...(terminal.type === 'run.failed' ? { error: { code: terminal.data.error.code, message: terminal.data.error.message } } : {}),
    ...(terminal.type === 'run.completed' ? { output: terminal.data.output } : {}),
    requests,
    ...(example.expect.scores ? { scores: await scoresOf(spindle, runId, Object.keys(example.expect.scores)) } : {}),
  };
  return { ...outcome, mismatches: mismatches(example, outcome) };
}

/** The run's scores by name once every expected one is there (its evaluators judge it after it ended), or as they are after 20 s. */
async function scoresOf(spindle: SpindleClient, runId: string, names: readonly string[]): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const scores = Object.fromEntries((await spindle.runs.scores(runId)).scores.map((s) => [s.name, s.value]));
    if (names.every((n) => n in scores) || Date.now() > deadline) return scores;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The example's workflow: its definition PUT as it is, or the module that builds it deployed (it saves under its own name). */
async function saveWorkflow(spindle: SpindleClient, example: Example, deploy: DeployModule | undefined): Promise<void> {
  if (example.workflow !== undefined) {
    await spindle.workflows.put(example.name, example.workflow);
    return;
  }
  if (example.module === undefined) throw new Error(`example ${example.name} has neither a workflow nor a module`);
  if (deploy === undefined) throw new Error(`example ${example.name} is built in code (${example.module}): run it with a deployer`);
  await deploy(example.module);
}

/** Follows the run to its terminal event, answering each open request an answer is written for. */
async function follow(spindle: SpindleClient, runId: string, answers: ExampleAnswer[], timeoutMs: number): Promise<RunEvent> {
  const answered = new Set<string>();
  for await (const event of spindle.runs.follow(runId, { signal: AbortSignal.timeout(timeoutMs) })) {
    if (event.type === 'run.completed' || event.type === 'run.failed' || event.type === 'run.canceled') return event;
    if (event.type === 'run.awaiting') await answerOpen(spindle, runId, answers, answered);
  }
  throw new Error(`run ${runId} did not end within ${timeoutMs} ms`);
}

async function answerOpen(spindle: SpindleClient, runId: string, answers: ExampleAnswer[], answered: Set<string>): Promise<void> {
  // The approval service may not have seen the request yet: wait for it before answering.
  for (let tries = 0; tries < 50; tries++) {
    const open = (await spindle.runs.requests(runId)).requests.filter((r) => r.status === 'pending' && !answered.has(r.requestId));
    if (open.length > 0) {
      for (const request of open) {
        const i = answers.findIndex((a) => a.node === request.nodeId);
        if (i < 0) continue; // nobody answers it: it waits, or expires
        const [answer] = answers.splice(i, 1);
        await spindle.requests.answer(runId, request.requestId, answerBody(request, answer));
        answered.add(request.requestId);
      }
      return;
    }
    if (answers.length === 0) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function answerBody(request: HumanRequest, answer: ExampleAnswer): AnswerBody {
  const by = { respondedBy: 'npm run examples' };
  if (request.kind === 'input') return { ...(answer.answer as AnswerBody | undefined), ...by };
  if (request.call === null) throw new Error(`approval request ${request.requestId} names no call`);
  const { callId, name, argumentsHash } = request.call;
  return {
    decision: answer.decision ?? 'approve',
    callId,
    name,
    argumentsHash,
    ...(answer.message ? { message: answer.message } : {}),
    ...by,
  };
}

function mismatches(example: Example, got: Omit<ExampleOutcome, 'mismatches'>): string[] {
  const want = example.expect;
  const out: string[] = [];
  if (got.status !== want.status)
    out.push(`status: expected ${want.status}, got ${got.status}${got.error ? ` (${got.error.code}: ${got.error.message})` : ''}`);
  if (want.error !== undefined && got.error?.code !== want.error)
    out.push(`error: expected ${want.error}, got ${got.error?.code ?? 'none'}`);
  for (const [name, value] of Object.entries(want.scores ?? {})) {
    const actual = got.scores?.[name];
    if (!isDeepStrictEqual(actual, value)) out.push(`scores.${name}: expected ${JSON.stringify(value)}, got ${JSON.stringify(actual)}`);
  }
  for (const [key, value] of Object.entries(want.output ?? {})) {
    const actual = got.output?.[key];
    if (!containsExpected(actual, value)) out.push(`output.${key}: expected ${JSON.stringify(value)}, got ${JSON.stringify(actual)}`);
  }
  if (want.requests !== undefined && !isDeepStrictEqual(got.requests, want.requests))
    out.push(`requests: expected ${JSON.stringify(want.requests)}, got ${JSON.stringify(got.requests)}`);
  return out;
}

/** Equal, except that an expected object may leave out keys the actual one has. */
function containsExpected(actual: unknown, expected: unknown): boolean {
  if (typeof expected !== 'object' || expected === null || Array.isArray(expected)) return isDeepStrictEqual(actual, expected);
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
  return Object.entries(expected).every(([k, v]) => containsExpected((actual as Record<string, unknown>)[k], v));
}
