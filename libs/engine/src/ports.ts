import type { RunEventDraft, Usage } from '@spindle/contracts';

/**
 * The effects the engine needs, as small interfaces it owns. The runner implements them with
 * JetStream, the AI SDK and the plugin registry; engine tests use simple in-process ones.
 */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface ModelRequest {
  /** `provider:model`, e.g. `openai:gpt-4o-mini`, `offline:echo`. */
  model: string;
  system?: string;
  messages: ChatMessage[];
  /** Stream the reply; `onDelta` then receives each text chunk as it arrives. */
  stream: boolean;
  onDelta?: (delta: string) => void;
  signal: AbortSignal;
}

export interface ModelResult {
  text: string;
  usage: Usage;
  finishReason?: string;
}

/** Throws `SpindleError` with code `unknown_model` or `provider_error`. */
export interface ModelPort {
  generate(request: ModelRequest): Promise<ModelResult>;
}

/** Code registered with the runner by name. Receives a read-only view of state, returns a delta. */
export type RegisteredFunction = (ctx: FunctionContext) => Promise<Record<string, unknown> | void> | Record<string, unknown> | void;

export interface FunctionContext {
  readonly state: Readonly<Record<string, unknown>>;
  /** The node's `args`, rendered from state. */
  readonly args: Readonly<Record<string, unknown>>;
  readonly nodeId: string;
  readonly runId: string;
  readonly signal: AbortSignal;
}

export interface FunctionRegistry {
  get(name: string): RegisteredFunction | undefined;
}

/** Appends one event to the run's log and resolves once it is durable; returns its seq. */
export interface RunLogPort {
  append(draft: RunEventDraft): Promise<number>;
}

/** Receives streamed token deltas of a node; not part of the log. */
export interface TokenSink {
  push(delta: { nodeId: string; spanId: string; afterSeq: number; text: string }): void;
  /** Sends whatever is buffered for the span; called before the model span completes. */
  flush(spanId: string): void;
}

export interface Clock {
  now(): Date;
}

export interface IdSource {
  /** A new span id, unique within the run. */
  spanId(): string;
  /** A correlation id for a redacted error. */
  correlationId(): string;
}
