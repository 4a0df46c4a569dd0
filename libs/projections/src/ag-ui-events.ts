import type { RunEvent, RunEventOf, RunEventType, TokenDelta } from '@spindle/contracts';
import { ModelTextStreams, type TextPiece } from './model-text-streams';
import { requestsInLog } from './run-requests';

/**
 * A run's log as an AG-UI 1.0 event stream: steps per node, assistant text and reasoning per
 * model call (live from its tokens, completed from the log), tool calls and results, state as a
 * snapshot and then JSON Patch deltas, and the run's end as
 * RUN_FINISHED (success, cancelled, or an interrupt for each request to a person) or RUN_ERROR.
 * Pure: the gateway's AG-UI endpoint only streams what this returns.
 */

/** One AG-UI event (the fields Spindle sets; the `@ag-ui/core` schemas are what the tests check them against). */
export interface AgUiEvent {
  [field: string]: unknown;
  type: string;
  timestamp: number;
}

/** An event before its timestamp (the run event's own time) is stamped on. */
type AgUiDraft = { type: string } & Record<string, unknown>;

/** Who the stream is for: the AG-UI thread and run ids the client chose, echoed on every run event. */
export interface AgUiRunIds {
  threadId: string;
  runId: string;
}

/** An interrupt's id names the Spindle run and its request, so the next run's `resume` can answer it. */
export const interruptIdOf = (runId: string, requestId: string): string => `${runId}:${requestId}`;

export function parseInterruptId(id: string): { runId: string; requestId: string } | undefined {
  const at = id.indexOf(':');
  return at > 0 && at < id.length - 1 ? { runId: id.slice(0, at), requestId: id.slice(at + 1) } : undefined;
}

/**
 * The AG-UI events one run event becomes, given the log up to and including it (`log`: what an
 * interrupt needs to name its requests). Every event type is decided here, most as nothing.
 */
export function agUiEventsOf(
  event: RunEvent,
  log: readonly RunEvent[],
  ids: AgUiRunIds,
  texts: ModelTextStreams = new ModelTextStreams(),
): AgUiEvent[] {
  const timestamp = Date.parse(event.at);
  const map = agUiEventsAfter[event.type] as (e: RunEvent, context: MapContext) => AgUiDraft[];
  return map(event, { log, ids, texts }).map((e) => ({ ...e, timestamp }));
}

interface MapContext {
  log: readonly RunEvent[];
  ids: AgUiRunIds;
  /** The model calls' streamed text so far (a fresh one says each call's text whole at its end). */
  texts: ModelTextStreams;
}

type Mapper<T extends RunEventType> = (e: RunEventOf<T>, context: MapContext) => AgUiDraft[];

const none = (): AgUiDraft[] => [];
/** A node's step: its id, and its branch when branches run it side by side (a step name is active once at a time). */
const stepName = (e: RunEvent) => `${e.nodeId ?? e.path}${e.branchId ? `[${e.branchId}]` : ''}`;

const agUiEventsAfter: { readonly [T in RunEventType]: Mapper<T> } = {
  'run.queued': (e) => [{ type: 'STATE_SNAPSHOT', snapshot: e.data.state }],
  'run.started': none,
  'run.awaiting': (e, { log, ids }) => [{ type: 'RUN_FINISHED', ...ids, outcome: { type: 'interrupt', interrupts: interruptsOf(e, log) } }],
  'run.resumed': none,
  'run.yielded': none,
  'run.completed': (e, { ids }) => [{ type: 'RUN_FINISHED', ...ids, result: e.data.output, outcome: { type: 'success' } }],
  'run.failed': (e) => [{ type: 'RUN_ERROR', message: e.data.error.message, code: e.data.error.code }],
  'run.canceled': (e, { ids }) => [
    { type: 'RUN_FINISHED', ...ids, outcome: { type: 'cancelled' }, ...(e.data.reason && { metadata: { reason: e.data.reason } }) },
  ],
  'node.started': (e) => [{ type: 'STEP_STARTED', stepName: stepName(e) }],
  'node.completed': (e) => [{ type: 'STEP_FINISHED', stepName: stepName(e) }],
  'node.failed': (e) => [{ type: 'STEP_FINISHED', stepName: stepName(e) }],
  'model.started': (e, { texts }) => texts.opened(e).flatMap((piece) => agUiTextOf(e.runId, piece)),
  // What the call's tokens did not say, from the log: a reader that resumes gets exactly what a live one did.
  'model.completed': (e, { texts }) => texts.completed(e).flatMap((piece) => agUiTextOf(e.runId, piece)),
  'model.failed': (e, { texts }) => texts.failed(e).flatMap((piece) => agUiTextOf(e.runId, piece)),
  'tool.called': (e) => [
    { type: 'TOOL_CALL_START', toolCallId: e.data.callId, toolCallName: e.data.name },
    { type: 'TOOL_CALL_ARGS', toolCallId: e.data.callId, delta: JSON.stringify(e.data.arguments) },
    { type: 'TOOL_CALL_END', toolCallId: e.data.callId },
  ],
  'tool.returned': (e) => [
    {
      type: 'TOOL_CALL_RESULT',
      messageId: `${e.runId}.${e.data.callId}:result`,
      toolCallId: e.data.callId,
      role: 'tool',
      content: JSON.stringify(e.data.error ? { error: e.data.error } : (e.data.result ?? null)),
    },
  ],
  'loop.iteration': none,
  'branch.started': none,
  'branch.completed': none,
  'input.requested': none,
  'input.answered': none,
  'approval.requested': none,
  'approval.resolved': none,
  'checkpoint.saved': (e) =>
    e.data.changes
      ? Object.keys(e.data.changes).length === 0
        ? []
        : [
            {
              type: 'STATE_DELTA',
              delta: Object.entries(e.data.changes).map(([key, value]) => ({ op: 'add', path: `/${pointerToken(key)}`, value })),
            },
          ]
      : [{ type: 'STATE_SNAPSHOT', snapshot: e.data.state }],
  'context.truncated': none,
  'memory.compacted': none,
  'retrieval.completed': none,
  'usage.reported': none,
  'attempt.failed': none,
  custom: none,
};

/**
 * A piece of a call's streamed output as AG-UI events: text as an assistant message, reasoning as
 * a reasoning message. Message ids name the run too: an AG-UI thread holds many runs, and span ids
 * are only unique within one.
 */
export function agUiTextOf(runId: string, piece: TextPiece): AgUiDraft[] {
  const messageId = `${runId}.${piece.id}`;
  if (piece.part === 'text') {
    if (piece.kind === 'start') return [{ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' }];
    if (piece.kind === 'delta') return [{ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: piece.delta }];
    return [{ type: 'TEXT_MESSAGE_END', messageId }];
  }
  if (piece.kind === 'start')
    return [
      { type: 'REASONING_START', messageId },
      { type: 'REASONING_MESSAGE_START', messageId, role: 'reasoning' },
    ];
  if (piece.kind === 'delta') return [{ type: 'REASONING_MESSAGE_CONTENT', messageId, delta: piece.delta }];
  return [
    { type: 'REASONING_MESSAGE_END', messageId },
    { type: 'REASONING_END', messageId },
  ];
}

/** An interrupt per open request: its prompt, its form as the answer's schema, or the tool call it would approve. */
function interruptsOf(awaiting: RunEventOf<'run.awaiting'>, log: readonly RunEvent[]) {
  return [...requestsInLog(log).values()]
    .filter((r) => r.answers.length === 0)
    .map(({ requestId, requested }) => ({
      id: interruptIdOf(awaiting.runId, requestId),
      reason: requested.type === 'input.requested' ? 'input' : 'tool_approval',
      message: requested.data.prompt,
      ...(requested.type === 'approval.requested'
        ? { toolCallId: requested.data.call.callId, metadata: { call: requested.data.call } }
        : { metadata: { form: requested.data.form } }),
    }));
}

/** A state key as one JSON Pointer token (RFC 6901). */
function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

const ENDS_RUN = new Set(['RUN_FINISHED', 'RUN_ERROR']);

/**
 * One AG-UI run's stream over a Spindle run: the events of `agUiEventsOf`, with steps kept as the
 * protocol wants them: a step that is active is not started again (a node re-entered after a
 * resume), one that is not active is not finished, and RUN_FINISHED closes the steps still open
 * (a node waiting for a person). A stream that continues a run re-opens the steps open where it
 * takes over.
 */
export class AgUiStream {
  private readonly active = new Set<string>();
  private readonly texts = new ModelTextStreams();

  constructor(private readonly ids: AgUiRunIds) {}

  /** STEP_STARTED for the steps open at the end of `log`: a resumed run goes on inside them. */
  takeOver(log: readonly RunEvent[]): AgUiEvent[] {
    const open = new Map<string, string>();
    for (const e of log) {
      if (e.type === 'node.started') open.set(e.spanId, stepName(e));
      else if (e.type === 'node.completed' || e.type === 'node.failed') open.delete(e.spanId);
    }
    const timestamp = log.length ? Date.parse(log.at(-1)!.at) : Date.now();
    return [...new Set(open.values())].map((name) => {
      this.active.add(name);
      return { type: 'STEP_STARTED', stepName: name, timestamp };
    });
  }

  /** The AG-UI events of the next run event (`log` ends with it). */
  next(event: RunEvent, log: readonly RunEvent[]): AgUiEvent[] {
    return agUiEventsOf(event, log, this.ids, this.texts).flatMap((out) => {
      if (out.type === 'STEP_STARTED') return this.active.has(String(out.stepName)) ? [] : (this.active.add(String(out.stepName)), [out]);
      if (out.type === 'STEP_FINISHED') return this.active.delete(String(out.stepName)) ? [out] : [];
      if (out.type !== 'RUN_FINISHED') return [out];
      const closing = [...this.active].map((name) => ({ type: 'STEP_FINISHED', stepName: name, timestamp: out.timestamp }));
      this.active.clear();
      return [...closing, out];
    });
  }

  /** The AG-UI events of a live token delta: text or reasoning as it is said. */
  token(token: TokenDelta): AgUiEvent[] {
    const timestamp = Date.now();
    return this.texts.token(token).flatMap((piece) => agUiTextOf(token.runId, piece).map((e) => ({ ...e, timestamp })));
  }

  /** Whether an event ends the AG-UI run. */
  static ends(event: AgUiEvent): boolean {
    return ENDS_RUN.has(event.type);
  }
}
