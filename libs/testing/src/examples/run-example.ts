import { isDeepStrictEqual } from 'node:util';
import type { HumanRequest, RunEvent } from '@spindle/contracts';
import type { Example, ExampleAnswer } from './example-file';

/** `fetch` against a gateway, signed in: the stack's `api`, or `npm run examples`' own. */
export type GatewayFetch = (path: string, init?: RequestInit) => Promise<Response>;

export interface ExampleOutcome {
  runId: string;
  status: 'completed' | 'failed' | 'canceled';
  error?: { code: string; message: string };
  output?: Record<string, unknown>;
  requests: Array<{ node: string; kind: 'input' | 'approval'; status: string }>;
  /** What differs from the example's `expect`; empty when it reached its expected outcome. */
  mismatches: string[];
}

const POLL_MS = 150;

/** Saves what the example needs and its workflow, runs it (answering as the example says) to its end, and compares. */
export async function runExample(api: GatewayFetch, example: Example, opts: { timeoutMs?: number } = {}): Promise<ExampleOutcome> {
  for (const [name, spec] of Object.entries(example.agents)) await put(api, `/v1/agents/${name}`, spec);
  for (const [name, def] of Object.entries(example.workflows)) await put(api, `/v1/workflows/${name}`, def);
  await put(api, `/v1/workflows/${example.name}`, example.workflow);
  const started = await send(api, 'POST', `/v1/workflows/${example.name}/runs`, {
    input: example.input ?? {},
    ...(example.parameters !== undefined ? { parameters: example.parameters } : {}),
  });
  const runId = (started as { runId: string }).runId;
  const terminal = await follow(api, runId, [...example.answers], opts.timeoutMs ?? 60_000);
  const requests = (await runRequests(api, runId)).map((r) => ({ node: r.nodeId, kind: r.kind, status: r.status }));
  const outcome: Omit<ExampleOutcome, 'mismatches'> = {
    runId,
    status: terminal.type === 'run.completed' ? 'completed' : terminal.type === 'run.failed' ? 'failed' : 'canceled',
    ...(terminal.type === 'run.failed' ? { error: { code: terminal.data.error.code, message: terminal.data.error.message } } : {}),
    ...(terminal.type === 'run.completed' ? { output: terminal.data.output } : {}),
    requests,
  };
  return { ...outcome, mismatches: mismatches(example, outcome) };
}

/** Polls the run's log until its terminal event, answering each open request an answer is written for. */
async function follow(api: GatewayFetch, runId: string, answers: ExampleAnswer[], timeoutMs: number): Promise<RunEvent> {
  const deadline = Date.now() + timeoutMs;
  const answered = new Set<string>();
  let after = 0;
  for (;;) {
    const page = (await send(api, 'GET', `/v1/runs/${runId}/events?after=${after}`)) as { events: RunEvent[]; lastSeq: number };
    after = page.lastSeq;
    const end = page.events.find((e) => e.type === 'run.completed' || e.type === 'run.failed' || e.type === 'run.canceled');
    if (end) return end;
    if (page.events.some((e) => e.type === 'run.awaiting')) await answerOpen(api, runId, answers, answered);
    if (Date.now() > deadline) throw new Error(`run ${runId} did not end within ${timeoutMs} ms (last seq ${after})`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function answerOpen(api: GatewayFetch, runId: string, answers: ExampleAnswer[], answered: Set<string>): Promise<void> {
  // The approval service may not have seen the request yet: wait for it before answering.
  for (let tries = 0; tries < 50; tries++) {
    const open = (await runRequests(api, runId)).filter((r) => r.status === 'pending' && !answered.has(r.requestId));
    if (open.length > 0) {
      for (const request of open) {
        const i = answers.findIndex((a) => a.node === request.nodeId);
        if (i < 0) continue; // nobody answers it: it waits, or expires
        const [answer] = answers.splice(i, 1);
        await send(api, 'POST', `/v1/runs/${runId}/requests/${request.requestId}/respond`, answerBody(request, answer));
        answered.add(request.requestId);
      }
      return;
    }
    if (answers.length === 0) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function answerBody(request: HumanRequest, answer: ExampleAnswer): Record<string, unknown> {
  const by = { respondedBy: 'npm run examples' };
  if (request.kind === 'input') return { ...(answer.answer ?? {}), ...by };
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

async function runRequests(api: GatewayFetch, runId: string): Promise<HumanRequest[]> {
  return ((await send(api, 'GET', `/v1/runs/${runId}/requests`)) as { requests: HumanRequest[] }).requests;
}

function mismatches(example: Example, got: Omit<ExampleOutcome, 'mismatches'>): string[] {
  const want = example.expect;
  const out: string[] = [];
  if (got.status !== want.status)
    out.push(`status: expected ${want.status}, got ${got.status}${got.error ? ` (${got.error.code}: ${got.error.message})` : ''}`);
  if (want.error !== undefined && got.error?.code !== want.error)
    out.push(`error: expected ${want.error}, got ${got.error?.code ?? 'none'}`);
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

async function put(api: GatewayFetch, path: string, body: unknown): Promise<void> {
  await send(api, 'PUT', path, body);
}

/** A JSON request whose refusal is an error naming the problem's code, title and detail. */
async function send(api: GatewayFetch, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await api(path, {
    method,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 1000)}`);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}
