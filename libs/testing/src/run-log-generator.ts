import { runEventSchema, type Actor, type RunEvent, type RunEventDraft, type Usage } from '@spindle/contracts';
import fc from 'fast-check';

/**
 * Property-test support: a fast-check arbitrary of VALID run logs (the generator). Its oracle,
 * the reference fold of such a log, is in `reference-fold.ts`.
 */

export const ARBITRARY_RUN_ID = 'run-prop';
const ROOT = { spanId: 'root', path: 'root' } as const;
const T0 = Date.parse('2025-03-01T10:00:00.000Z');

const runningActions = ['node', 'model', 'tool', 'close', 'loop', 'branch', 'checkpoint', 'await', 'yield', 'lost'] as const;
type RunningAction = (typeof runningActions)[number];
const CI_KEY: Actor = { kind: 'key', id: 'key_ci', name: 'ci' };
const ALICE: Actor = { kind: 'user', id: 'alice-sub', name: 'Alice' };
const TIMED_OUT: Actor = { kind: 'system', id: 'timeout', name: 'time-out' };

type Ending = 'completed' | 'failed' | 'canceled' | 'awaiting' | 'none';

interface Step {
  /** What to do next; an action not possible in the current state falls back to `pick` among those that are. */
  action: RunningAction;
  pick: number;
  nodeId: string;
  nodeType: string;
  model: string;
  tool: string;
  fail: boolean;
  usage: Usage;
  durationMs: number;
  approval: boolean;
}

interface OpenSpan {
  kind: 'node' | 'model' | 'tool';
  envelope: { spanId: string; parentSpanId: string; nodeId: string; path: string; iteration?: number; branchId?: string };
  nodeType: string;
  model: string;
  tool: string;
  callId: string;
}

// Multiples of 1/256 add up exactly in binary floating point and survive the store's rounding to
// 9 decimals, so totals compare exactly whatever order they are summed in.
const usageArb: fc.Arbitrary<Usage> = fc
  .record({
    inputTokens: fc.nat({ max: 5_000 }),
    outputTokens: fc.nat({ max: 5_000 }),
    cost: fc.option(fc.nat({ max: 4_096 }), { nil: undefined }),
  })
  .map(({ inputTokens, outputTokens, cost }) => ({
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    ...(cost === undefined ? {} : { costUsd: cost / 256 }),
  }));

/** Mostly span work; run-level turns (waits, hand-backs, lost workers) now and then. */
const actionWeights: Record<RunningAction, number> = {
  node: 6,
  model: 4,
  tool: 4,
  close: 9,
  loop: 1,
  branch: 1,
  checkpoint: 1,
  await: 1,
  yield: 1,
  lost: 1,
};

const stepArb: fc.Arbitrary<Step> = fc.record({
  action: fc.oneof(...runningActions.map((a) => ({ arbitrary: fc.constant(a), weight: actionWeights[a] }))),
  pick: fc.nat({ max: 1_000 }),
  nodeId: fc.constantFrom('plan', 'search', 'reply', 'review'),
  nodeType: fc.constantFrom('llm', 'agent', 'function', 'human'),
  model: fc.constantFrom('offline:echo', 'openai:gpt-test'),
  tool: fc.constantFrom('lookup', 'calculator'),
  fail: fc.boolean(),
  usage: usageArb,
  durationMs: fc.nat({ max: 100_000 }),
  approval: fc.boolean(),
});

export interface RunLogConstraints {
  /** Random steps before the ending (default 40); a step emits one to three events. */
  maxSteps?: number;
}

/**
 * A valid run log of run `ARBITRARY_RUN_ID`: `run.queued` at seq 1, then a random mix of runner
 * attempts (started, yielded and resumed, a lost worker), well-nested node spans with model and
 * tool spans inside, loop and branch markers, checkpoints and waits for input or approval, ending
 * with one terminal event or with none (a run still going). Seqs are gapless from 1, every span id
 * is used by one span only, and a parentSpanId always names a span open at that point. Spans a lost
 * worker, a yield or a failure left open stay open for good, as in a real log.
 */
export function runLogArbitrary(constraints: RunLogConstraints = {}): fc.Arbitrary<RunEvent[]> {
  return fc
    .record({
      // Lengths spread over the whole range, not just short logs.
      steps: fc.array(stepArb, { maxLength: constraints.maxSteps ?? 40, size: 'max' }),
      ending: fc.constantFrom<Ending>('completed', 'completed', 'failed', 'canceled', 'awaiting', 'none'),
      endUsage: usageArb,
      cancelReason: fc.option(fc.constantFrom('by user', 'deadline'), { nil: undefined }),
      cancelDuration: fc.option(fc.nat({ max: 100_000 }), { nil: undefined }),
    })
    .map(({ steps, ending, endUsage, cancelReason, cancelDuration }) => buildLog(steps, ending, endUsage, cancelReason, cancelDuration));
}

/** The same log as another run's (the arbitrary's logs all belong to `ARBITRARY_RUN_ID`). */
export function withRunId(log: readonly RunEvent[], runId: string): RunEvent[] {
  return log.map((e) => ({ ...e, runId }));
}

function buildLog(
  steps: Step[],
  ending: Ending,
  endUsage: Usage,
  cancelReason: string | undefined,
  cancelDuration: number | undefined,
): RunEvent[] {
  const drafts: RunEventDraft[] = [];
  const emit = (draft: RunEventDraft) => void drafts.push(draft);
  // Asserted, not annotated: the closures below change it, which narrowing cannot see.
  let phase = 'queued' as 'queued' | 'running' | 'awaiting';
  let stack: OpenSpan[] = [];
  let attempt = 0;
  let ids = 0;
  let iteration: number | undefined;
  let branchId: string | undefined;
  let waitingOn: { requestId: string; approval: boolean; callId: string; envelope: ReturnType<typeof here> } | undefined;
  const nextId = (prefix: string) => `${prefix}-${++ids}`;
  const top = () => stack.at(-1);
  /** The envelope of an event about the innermost open node, or of the run when none is open. */
  const here = () => {
    const node = [...stack].reverse().find((s) => s.kind === 'node');
    return node
      ? { spanId: node.envelope.spanId, parentSpanId: node.envelope.parentSpanId, nodeId: node.envelope.nodeId, path: node.envelope.path }
      : { ...ROOT };
  };

  const start = () => {
    attempt++;
    emit(
      attempt === 1
        ? { type: 'run.started', ...ROOT, data: { attempt, worker: `w${attempt}` } }
        : { type: 'run.resumed', ...ROOT, data: { reason: 'handed_back', attempt, worker: `w${attempt}` } },
    );
    phase = 'running';
  };
  /** A person answers, or (`timedOut`) the approval service records that nobody did in time. */
  const answer = (timedOut = false) => {
    const w = waitingOn;
    if (!w) throw new Error('answer without a wait');
    const by = timedOut ? { timedOut: true, answeredBy: TIMED_OUT } : { answeredBy: ALICE };
    // As the gateway records it: on the span of the node that asked.
    emit(
      w.approval
        ? {
            type: 'approval.resolved',
            ...w.envelope,
            data: {
              requestId: w.requestId,
              decision: timedOut ? 'rejected' : 'approved',
              callId: w.callId,
              name: 'lookup',
              argumentsHash: 'h',
              ...by,
            },
          }
        : {
            type: 'input.answered',
            ...w.envelope,
            data: { requestId: w.requestId, ...(timedOut ? {} : { answer: { text: 'yes' } }), ...by },
          },
    );
    attempt++;
    emit({ type: 'run.resumed', ...ROOT, data: { reason: 'answered', attempt, worker: `w${attempt}` } });
    waitingOn = undefined;
    phase = 'running';
  };
  /** A human node asks for input, or a tool call for approval: the run stops until answered. */
  const wait = (approval: boolean) => {
    const w = { requestId: nextId('req'), approval, callId: nextId('call'), envelope: here() };
    if (approval) {
      const call = { callId: w.callId, name: 'lookup', arguments: {}, argumentsHash: 'h' };
      emit({ type: 'approval.requested', ...w.envelope, data: { requestId: w.requestId, prompt: 'allow?', call, mode: 'single' } });
    } else {
      emit({
        type: 'input.requested',
        ...w.envelope,
        data: { requestId: w.requestId, prompt: 'ok?', form: { kind: 'boolean' }, mode: 'single' },
      });
    }
    emit({ type: 'run.awaiting', ...ROOT, data: { reason: approval ? 'tool_approval' : 'input', requestIds: [w.requestId] } });
    waitingOn = w;
    phase = 'awaiting';
  };
  const open = (kind: OpenSpan['kind'], s: Step) => {
    const parent = top();
    const nodeId = kind === 'node' ? s.nodeId : (parent?.envelope.nodeId ?? s.nodeId);
    const path = kind === 'node' ? `${parent?.envelope.path ?? ROOT.path}/${s.nodeId}` : (parent?.envelope.path ?? ROOT.path);
    const span: OpenSpan = {
      kind,
      envelope: withoutUndefined({
        spanId: nextId(kind),
        parentSpanId: parent?.envelope.spanId ?? ROOT.spanId,
        nodeId,
        path,
        iteration,
        branchId,
      }),
      nodeType: s.nodeType,
      model: s.model,
      tool: s.tool,
      callId: nextId('call'),
    };
    // Prompt assembly's cut and a compaction are instants under the node, before the call they shape.
    if (kind === 'model' && parent && s.pick % 3 === 0) instantUnder(parent, s.pick % 2 === 0 ? 'context' : 'memory');
    stack.push(span);
    const e = span.envelope;
    if (kind === 'node') emit({ type: 'node.started', ...e, data: { nodeType: span.nodeType, input: { from: nodeId } } });
    else if (kind === 'model') emit({ type: 'model.started', ...e, data: { model: span.model, prompt: 'go on', stream: false } });
    else emit({ type: 'tool.called', ...e, data: { name: span.tool, callId: span.callId, arguments: { q: ids } } });
  };
  const instantUnder = (parent: OpenSpan, kind: 'context' | 'memory') => {
    const e = { ...parent.envelope, spanId: nextId(kind), parentSpanId: parent.envelope.spanId };
    if (kind === 'context')
      emit({
        type: 'context.truncated',
        ...e,
        data: { kind: 'tool_result', target: 'lookup', tokensBefore: 900, tokensAfter: 300, strategy: 'sentence' },
      });
    else
      emit({
        type: 'memory.compacted',
        ...e,
        data: { memoryKey: 'messages', trigger: 'tokens', messagesBefore: 40, messagesAfter: 9, tokensBefore: 5000, tokensAfter: 900 },
      });
  };
  const close = (s: Pick<Step, 'fail' | 'usage' | 'durationMs'>) => {
    const span = stack.pop();
    if (!span) throw new Error('close without an open span');
    const e = span.envelope;
    const { durationMs } = s;
    if (span.kind === 'node') {
      emit(
        s.fail
          ? {
              type: 'node.failed',
              ...e,
              data: { nodeType: span.nodeType, error: { code: 'node_failed', message: `${e.nodeId} broke`, nodeId: e.nodeId }, durationMs },
            }
          : { type: 'node.completed', ...e, data: { nodeType: span.nodeType, output: { done: e.spanId }, durationMs } },
      );
    } else if (span.kind === 'model') {
      emit(
        s.fail
          ? {
              type: 'model.failed',
              ...e,
              data: { model: span.model, error: { code: 'provider_error', message: 'rate limited' }, durationMs },
            }
          : { type: 'model.completed', ...e, data: { model: span.model, text: `answer ${e.spanId}`, usage: s.usage, durationMs } },
      );
    } else {
      userCodeSays(span, s);
      const outcome = s.fail ? { error: { code: 'tool_failed' as const, message: 'no such order' } } : { result: { found: e.spanId } };
      emit({ type: 'tool.returned', ...e, data: { name: span.tool, callId: span.callId, ...outcome, durationMs } });
    }
  };
  /** What a tool's code says while it runs: a failed try before a failure, its spending, an event; instants under the call. */
  const userCodeSays = (tool: OpenSpan, s: Pick<Step, 'fail' | 'usage'>) => {
    const under = (kind: string) => ({ ...tool.envelope, spanId: nextId(kind), parentSpanId: tool.envelope.spanId });
    const source = { kind: 'tool' as const, name: tool.tool, callId: tool.callId };
    if (s.fail)
      emit({
        type: 'attempt.failed',
        ...under('attempt'),
        data: { ...source, attempt: 1, error: { code: 'tool_failed', message: 'busy' }, retryInMs: 100 },
      });
    emit({ type: 'usage.reported', ...under('usage'), data: { usage: s.usage, units: { lookups: 1 }, source, runUsage: s.usage } });
    emit({ type: 'custom', ...under('custom'), data: { name: 'lookup.done', data: { by: tool.envelope.spanId } } });
  };
  /** Spans open now are never closed: a new attempt runs those steps again under new spans. */
  const abandonOpenSpans = () => {
    stack = [];
    iteration = undefined;
    branchId = undefined;
  };

  const possible = (a: RunningAction): boolean => {
    const t = top();
    switch (a) {
      case 'node':
        return (t === undefined || t.kind === 'node') && stack.length < 4;
      case 'model':
      case 'tool':
        return t?.kind === 'node';
      case 'close':
        return t !== undefined;
      default:
        return true;
    }
  };

  emit({
    type: 'run.queued',
    ...ROOT,
    data: {
      workflow: { name: 'prop', version: 3 },
      input: { question: 'why' },
      state: {},
      definition: {},
      tenant: 'acme',
      startedBy: CI_KEY,
    },
  });
  for (const s of steps) {
    if (phase === 'queued') {
      start();
      continue;
    }
    if (phase === 'awaiting') {
      answer(s.fail);
      continue;
    }
    const valid = runningActions.filter(possible);
    const action = possible(s.action) ? s.action : valid[s.pick % valid.length];
    switch (action) {
      case 'node':
      case 'model':
      case 'tool':
        open(action, s);
        break;
      case 'close':
        close(s);
        break;
      case 'loop':
        iteration = (iteration ?? 0) + 1;
        emit({ type: 'loop.iteration', ...here(), data: { iteration, maxSteps: 10 } });
        break;
      case 'branch':
        if (branchId === undefined) {
          branchId = nextId('branch');
          emit({ type: 'branch.started', ...here(), branchId, data: { forkId: 'fork', branchId } });
        } else {
          emit({
            type: 'branch.completed',
            ...here(),
            branchId,
            data: { forkId: 'fork', branchId, status: 'completed', durationMs: s.durationMs },
          });
          branchId = undefined;
        }
        break;
      case 'checkpoint':
        emit({
          type: 'checkpoint.saved',
          ...ROOT,
          data: { checkpointId: nextId('cp'), step: drafts.length, state: {}, frontier: [s.nodeId], graphHash: 'g' },
        });
        break;
      case 'await':
        wait(s.approval);
        break;
      case 'yield':
        emit({ type: 'run.yielded', ...ROOT, data: { reason: 'shutdown', worker: `w${attempt}` } });
        abandonOpenSpans();
        phase = 'queued';
        break;
      case 'lost':
        attempt++;
        emit({ type: 'run.resumed', ...ROOT, data: { reason: 'worker_lost', attempt, worker: `w${attempt}` } });
        abandonOpenSpans();
        break;
    }
  }

  if (ending === 'completed') {
    if (phase === 'queued') start();
    if (phase === 'awaiting') answer();
    while (stack.length > 0) close({ fail: false, usage: endUsage, durationMs: 1 });
    emit({ type: 'run.completed', ...ROOT, data: { output: { answer: 42 }, durationMs: 1_000, usage: endUsage } });
  } else if (ending === 'failed') {
    emit({ type: 'run.failed', ...ROOT, data: { error: { code: 'node_failed', message: 'gave up' }, durationMs: 2_000 } });
  } else if (ending === 'canceled') {
    emit({
      type: 'run.canceled',
      ...ROOT,
      data: withoutUndefined({ reason: cancelReason, durationMs: cancelDuration, canceledBy: ALICE }),
    });
  } else if (ending === 'awaiting' && phase === 'running') {
    wait(steps.at(-1)?.approval ?? false);
  }

  // Stamped and checked the way the log writer does it, so every generated event is a valid one.
  return drafts.map((draft, i) => runEventSchema.parse({ ...draft, runId: ARBITRARY_RUN_ID, seq: i + 1, at: atOf(i + 1) }) as RunEvent);
}

function atOf(seq: number): string {
  return new Date(T0 + seq * 1_000).toISOString();
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

// ---------------------------------------------------------------------------------------------
// The reference fold.
