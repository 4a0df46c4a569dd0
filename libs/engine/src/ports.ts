import type { FileRef, RetrievedChunk, RunEventDraft, TokenPart, Usage } from '@spindle/contracts';
import type { ModelScript } from './definition/model-script.schema';
import type { UsageReport } from './executors/user-code-reports';

/**
 * The effects the engine needs, as small interfaces it owns. The runner implements them with
 * JetStream, the AI SDK and the plugin registry; engine tests use simple in-process ones.
 */
/** A tool the model may call: its name, what it does, and a JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A tool call the model asked for; `arguments` is the parsed JSON object. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * One turn of a conversation. `attachments` are files the turn carries (by reference: the model
 * port reads their bytes), sent after its text.
 */
export type ChatMessage =
  | { role: 'user'; content: string; attachments?: FileRef[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  /** A tool's result (JSON text) or failure, answering the assistant's call `toolCallId`. */
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean; attachments?: FileRef[] };

export interface ModelRequest {
  /** `provider:model`, e.g. `openai:gpt-4o-mini`, `offline:echo`. */
  model: string;
  system?: string;
  messages: ChatMessage[];
  /** Stream the reply; `onDelta` then receives each chunk of text (or of reasoning) as it arrives. */
  stream: boolean;
  onDelta?: (delta: string, part: TokenPart) => void;
  /** Tools the model may call; the port never runs them, it returns the calls. */
  tools?: ToolSpec[];
  /** The node's turns for `offline:script` (validated with the definition); other models never get one. */
  script?: ModelScript;
  signal: AbortSignal;
}

export interface ModelResult {
  text: string;
  /** What the model reasoned before answering, where the provider shows it. */
  reasoning?: string;
  usage: Usage;
  finishReason?: string;
  /** The model that answered, as the provider names it (e.g. a dated snapshot of the one asked for). */
  responseModel?: string;
  /** Calls the model asked for (empty when it answered with text only). */
  toolCalls: ToolCall[];
  /** Cost of this call in USD from the price table, when the model has a price. */
  costUsd?: number;
}

/** Throws `SpindleError` with code `unknown_model` or `provider_error`. */
export interface ModelPort {
  generate(request: ModelRequest): Promise<ModelResult>;
}

export interface RetrievalRequest {
  /** The knowledge base (or the plugin retriever) to ask, by name. */
  knowledgeBase: string;
  query: string;
  topK: number;
  minScore?: number;
  /** Metadata a chunk must carry, each key equal to its value. */
  filter?: Record<string, string | number | boolean>;
  signal: AbortSignal;
}

export interface RetrievalAnswer {
  /** `knowledge_base`, or the plugin or MCP tool that answered. */
  retriever: string;
  /** The knowledge base's version that was searched, where it has versions. */
  version?: number;
  /** Best first, at most `topK`, none below `minScore`. */
  chunks: RetrievedChunk[];
}

/**
 * Finds chunks for a query, within the run's tenant. The runner's is the knowledge service over
 * the bus (and plugin retrievers by name); throws `SpindleError('knowledge_base_not_found')` or
 * `SpindleError('retrieval_failed')`.
 */
export interface RetrieverPort {
  retrieve(request: RetrievalRequest): Promise<RetrievalAnswer>;
}

/** Code registered with the runner by name. Receives a read-only view of state, returns a delta. */
export type RegisteredFunction = (ctx: FunctionContext) => Promise<Record<string, unknown> | void> | Record<string, unknown> | void;

/** One failed try of user code that is tried again after `retryInMs`. */
export interface AttemptFailure {
  attempt: number;
  error: unknown;
  retryInMs: number;
}

/**
 * What user code may say into the run's log while it runs, under its own span. Each call checks
 * what it is given (throwing `SpindleError` `validation_failed` or `payload_too_large`) and queues
 * the event; the promise resolves once it has a place in the log, not once it is stored.
 */
export interface UserCodeVoice {
  /** A `custom` event `{ name, data }`; `data` is JSON of at most `MAX_CUSTOM_EVENT_BYTES`. */
  emit(name: string, data?: unknown): Promise<void>;
  /** A `usage.reported` event; the run's ledger counts it at once, so the next node's budget check sees it. */
  reportUsage(report: UsageReport): Promise<void>;
  /** An `attempt.failed` event; the error is redacted like a node's unless it is public. */
  attemptFailed(failure: AttemptFailure): Promise<void>;
}

export interface FunctionContext extends UserCodeVoice {
  readonly state: Readonly<Record<string, unknown>>;
  /** The node's `args`, rendered from state. */
  readonly args: Readonly<Record<string, unknown>>;
  readonly nodeId: string;
  readonly runId: string;
  readonly signal: AbortSignal;
}

export interface FunctionRegistry {
  get(name: string): RegisteredFunction | undefined;
  /**
   * Whether the function only computes from its arguments and state (no I/O, no effect): the
   * engine runs it without waiting for the log first. Anything not declared pure may act on the
   * world, so the log holds everything that led to the call before it is made.
   */
  isPure?(name: string): boolean;
}

export interface ToolContext extends UserCodeVoice {
  readonly runId: string;
  readonly nodeId: string;
  readonly callId: string;
  readonly signal: AbortSignal;
}

/**
 * Tools registered with the runner (plugin modules) and tools of MCP servers an agent names.
 * `call` validates the arguments against the tool's input schema and applies its timeout and
 * retry policy; a failure throws (a `PublicError` message is shown, anything else is redacted by
 * the engine).
 */
export interface ToolPort {
  /** The specs of the named tools; throws `SpindleError('tool_not_found')` for an unknown name. */
  specs(names: readonly string[]): ToolSpec[];
  /**
   * Connects to the node's MCP servers (or reuses the run's connection), lists their tools and
   * returns their specs named `<server>__<tool>`; afterwards `call` routes those names, for this
   * node, to the server. Throws `SpindleError('tool_failed')` when a server cannot be reached.
   * Absent on a runner without MCP support.
   */
  discover?(
    servers: ReadonlyArray<{ name: string; command?: string; args?: string[]; url?: string }>,
    ctx: { readonly runId: string; readonly nodeId: string; readonly signal: AbortSignal },
  ): Promise<ToolSpec[]>;
  call(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
}

/**
 * The run's log. `append` gives an event its seq and queues it (it resolves before the event is
 * stored, so pure steps never wait for the log); `durable()` is the barrier: it resolves once
 * everything appended so far is stored. The engine crosses it before anything leaves the process
 * (a model call, a function, a tool or MCP call) and before it reports an outcome.
 */
export interface RunLogPort {
  append(draft: RunEventDraft): Promise<number>;
  durable(): Promise<void>;
}

/** Receives streamed token deltas of a node; not part of the log. */
export interface TokenSink {
  /** `afterSeq`: the node's `node.started`; `callSeq`: the call's `model.started`. */
  push(delta: { nodeId: string; spanId: string; afterSeq: number; callSeq: number; part: TokenPart; text: string }): void;
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
  /** A new request id (human input, tool approval), unique across runs. */
  requestId(): string;
}

/** A `checkpoint: true` node's stored result, found by key. */
export interface StoredNodeResult {
  key: string;
  output: Record<string, unknown>;
  handle: string | null;
}

/**
 * Where `checkpoint: true` nodes' results are kept (the checkpoint service projects them from
 * `node.completed`). A store that cannot answer returns undefined: the node then runs.
 */
export interface NodeResultStore {
  /** The first of `keys` (in order) with a stored result. */
  find(keys: readonly string[]): Promise<StoredNodeResult | undefined>;
}
