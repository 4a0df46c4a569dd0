import type { RunEvent, RunEventOf, RunEventType } from '@spindle/contracts';
import { ModelTextStreams, type TextPiece } from './model-text-streams';
import { openRequestsOf } from './run-requests';

/**
 * A run's log as the AI SDK's UI message stream (what `useChat` reads): the assistant's text and
 * reasoning per model call (live from its tokens, completed from the log), each tool call with
 * its input and output, a `data-node` part per node (updated in place as it ends), and the end:
 * `finish`, `error`, `abort`, or a `data-awaiting` part naming the requests a person must answer
 * before `finish`. Pure; the gateway writes what it returns.
 */

/** One UI message chunk (the `ai` package's `UIMessageChunk`, the members Spindle writes). */
export type UiMessageChunk = { type: string } & Record<string, unknown>;

type Mapper<T extends RunEventType> = (e: RunEventOf<T>, log: readonly RunEvent[], texts: ModelTextStreams) => UiMessageChunk[];

const none = (): UiMessageChunk[] => [];
const node = (e: RunEvent, status: string, extra: Record<string, unknown> = {}): UiMessageChunk[] => [
  { type: 'data-node', id: e.spanId, data: { node: e.nodeId ?? e.path, status, ...extra } },
];

const chunksAfter: { readonly [T in RunEventType]: Mapper<T> } = {
  'run.queued': none,
  'run.started': none,
  'run.awaiting': (e, log) => [
    { type: 'data-awaiting', id: `${e.runId}-${e.seq}`, data: { reason: e.data.reason, requests: openRequestsOf(log) } },
    { type: 'finish', finishReason: 'other' },
  ],
  'run.resumed': none,
  'run.yielded': none,
  'run.completed': () => [{ type: 'finish', finishReason: 'stop' }],
  'run.failed': (e) => [{ type: 'error', errorText: `${e.data.error.code}: ${e.data.error.message}` }],
  'run.canceled': (e) => [{ type: 'abort', ...(e.data.reason && { reason: e.data.reason }) }],
  'node.started': (e) => node(e, 'started', { nodeType: e.data.nodeType }),
  'node.completed': (e) => node(e, 'completed', { nodeType: e.data.nodeType, durationMs: e.data.durationMs }),
  'node.failed': (e) => node(e, 'failed', { nodeType: e.data.nodeType, error: e.data.error.message }),
  'model.started': (e, _, texts) => [{ type: 'start-step' }, ...texts.opened(e).map(uiTextChunkOf)],
  // What the call's tokens did not say, from the log: a stream read again after a reload is the same message.
  'model.completed': (e, _, texts) => [...texts.completed(e).map(uiTextChunkOf), { type: 'finish-step' }],
  'model.failed': (e, _, texts) => [...texts.failed(e).map(uiTextChunkOf), { type: 'finish-step' }],
  'tool.called': (e) => [
    { type: 'tool-input-available', toolCallId: e.data.callId, toolName: e.data.name, input: e.data.arguments, dynamic: true },
  ],
  'tool.returned': (e) => [
    e.data.error
      ? { type: 'tool-output-error', toolCallId: e.data.callId, errorText: e.data.error.message, dynamic: true }
      : { type: 'tool-output-available', toolCallId: e.data.callId, output: e.data.result ?? null, dynamic: true },
  ],
  'loop.iteration': none,
  'branch.started': none,
  'branch.completed': none,
  'input.requested': none,
  'input.answered': none,
  'approval.requested': none,
  'approval.resolved': none,
  'checkpoint.saved': none,
  'context.truncated': none,
  'memory.compacted': none,
  'retrieval.completed': none,
  'usage.reported': none,
  'attempt.failed': none,
  custom: none,
};

/**
 * The chunks one run event becomes (`log` ends with it), given the calls' text streamed so far
 * (`texts`, fed the run's tokens too; a fresh one says each call's text whole at its end).
 */
export function uiMessageChunksOf(event: RunEvent, log: readonly RunEvent[], texts = new ModelTextStreams()): UiMessageChunk[] {
  return (chunksAfter[event.type] as (e: RunEvent, log: readonly RunEvent[], texts: ModelTextStreams) => UiMessageChunk[])(
    event,
    log,
    texts,
  );
}

/** A piece of a call's streamed output as a text or reasoning chunk. */
export function uiTextChunkOf(piece: TextPiece): UiMessageChunk {
  const type = `${piece.part}-${piece.kind}`;
  return piece.kind === 'delta' ? { type, id: piece.id, delta: piece.delta } : { type, id: piece.id };
}

/** Whether a chunk ends the assistant's message (the stream closes after it). */
export function endsUiMessage(chunk: UiMessageChunk): boolean {
  return chunk.type === 'finish' || chunk.type === 'error' || chunk.type === 'abort';
}
