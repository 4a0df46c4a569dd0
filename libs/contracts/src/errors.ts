import type { Actor } from './identity';

/**
 * Stable error codes. Clients and services classify failures by `code`, never by class.
 * Adding a code forces every exhaustive map over `ErrorCode` (HTTP status, retryability) to decide.
 */
export const ErrorCodes = {
  // request validation (gateway)
  validation_failed: 'validation_failed',
  invalid_json: 'invalid_json',
  invalid_definition: 'invalid_definition',
  invalid_last_event_id: 'invalid_last_event_id',
  payload_too_large: 'payload_too_large',
  unsupported_media_type: 'unsupported_media_type',
  /** The HTTP request itself is malformed (URL encoding, Content-Length, a header). */
  invalid_request: 'invalid_request',
  uri_too_long: 'uri_too_long',
  headers_too_large: 'headers_too_large',
  /** A JSON body nests deeper than the documented limit. */
  nesting_too_deep: 'nesting_too_deep',
  /** A state-changing request from a browser page on another origin. */
  cross_origin_refused: 'cross_origin_refused',
  /**
   * An outbound target (webhook, MCP server, a plugin's fetch) is an internal address the operator
   * did not allow: refused at save, and at connect when a name resolves to one.
   */
  egress_refused: 'egress_refused',
  method_not_allowed: 'method_not_allowed',
  /** No credentials, or credentials that are malformed, unknown, revoked, expired or badly signed. */
  unauthenticated: 'unauthenticated',
  /** A valid principal without the scope the route needs. */
  forbidden: 'forbidden',
  /** The tenant is over its start rate: retry after `Retry-After`. */
  rate_limited: 'rate_limited',
  /** The tenant has used its daily token or cost budget. */
  quota_exceeded: 'quota_exceeded',
  /** The caller's key or tenant has as many event streams open as it may: retry after `Retry-After`, or close one. */
  too_many_streams: 'too_many_streams',
  not_found: 'not_found',
  workflow_not_found: 'workflow_not_found',
  run_not_found: 'run_not_found',
  /** The run is older than the deployment's retention: its log and everything derived from it are gone. */
  run_expired: 'run_expired',
  /** The checkpoint was saved longer ago than the checkpoint TTL and purged: the run can no longer be forked or resumed from it. */
  checkpoint_expired: 'checkpoint_expired',
  /** The run's log is gone with a lost JetStream store (the stream was made again after the run): see docs/operations.md. */
  run_log_lost: 'run_log_lost',
  /** The run has not ended: cancel it before erasing it. */
  run_active: 'run_active',
  version_not_found: 'version_not_found',
  thread_not_found: 'thread_not_found',
  /** A run was started on a thread whose previous run has not ended, with `multitaskStrategy: reject`. */
  thread_busy: 'thread_busy',
  idempotency_key_reused: 'idempotency_key_reused',
  conflict: 'conflict',
  request_not_found: 'request_not_found',
  checkpoint_not_found: 'checkpoint_not_found',
  request_closed: 'request_closed',
  request_already_answered: 'request_already_answered',
  run_not_waiting: 'run_not_waiting',
  approval_binding_mismatch: 'approval_binding_mismatch',
  definition_mismatch: 'definition_mismatch',
  service_unavailable: 'service_unavailable',
  /** NATS (the log, the command queue) did not answer: an infrastructure fault, never the run's. */
  bus_unavailable: 'bus_unavailable',
  /** The JetStream store has no room left (its limit or its disk): nothing was written; retry once room is made. */
  storage_full: 'storage_full',
  /** PostgreSQL did not answer (down, failing over, unreachable): an infrastructure fault; retry after `Retry-After`. */
  database_unavailable: 'database_unavailable',
  internal: 'internal',
  // run and node failures (engine and runner)
  node_failed: 'node_failed',
  node_timeout: 'node_timeout',
  /** A pattern's participant (agent or manager) overran its wait limit (`timeout_ms`): the error names it. */
  participant_timeout: 'participant_timeout',
  run_timeout: 'run_timeout',
  run_budget_exceeded: 'run_budget_exceeded',
  max_steps_exceeded: 'max_steps_exceeded',
  max_iterations_exceeded: 'max_iterations_exceeded',
  interrupted: 'interrupted',
  canceled: 'canceled',
  provider_error: 'provider_error',
  unknown_model: 'unknown_model',
  /** `offline:script` has no turn for the conversation it was given. */
  model_script_exhausted: 'model_script_exhausted',
  tool_failed: 'tool_failed',
  tool_not_found: 'tool_not_found',
  function_not_found: 'function_not_found',
  function_failed: 'function_failed',
  expression_error: 'expression_error',
  template_error: 'template_error',
  run_lost: 'run_lost',
  input_timeout: 'input_timeout',
  /** The run's log reached its byte limit (`SPINDLE_MAX_RUN_LOG_BYTES`). */
  run_log_limit_exceeded: 'run_log_limit_exceeded',
  file_not_found: 'file_not_found',
  /** The model cannot take a file of this media type (the model table says which it takes). */
  attachment_not_supported: 'attachment_not_supported',
  knowledge_base_not_found: 'knowledge_base_not_found',
  /** A score names a span its run's trace does not have. */
  span_not_found: 'span_not_found',
  dataset_not_found: 'dataset_not_found',
  /** A document that is empty, not what its media type says (a PDF that is not one), or has no text. */
  invalid_document: 'invalid_document',
  /** The embedding model's vectors have another dimension than the knowledge base's. */
  embedding_dimension_mismatch: 'embedding_dimension_mismatch',
  /** A retriever (the knowledge service, a plugin, an MCP tool) failed to answer. */
  retrieval_failed: 'retrieval_failed',
  /** What a prompt may not lose (system, the newest message) is alone larger than the context budget. */
  context_budget_exceeded: 'context_budget_exceeded',
  /** A replay met a model or tool call its recording does not have, and was asked to stop there. */
  replay_diverged: 'replay_diverged',
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

/** Whether retrying the same operation can help. Exhaustive on purpose. */
export const retryableByCode: Record<ErrorCode, boolean> = {
  validation_failed: false,
  invalid_json: false,
  invalid_definition: false,
  invalid_last_event_id: false,
  payload_too_large: false,
  unsupported_media_type: false,
  invalid_request: false,
  uri_too_long: false,
  headers_too_large: false,
  nesting_too_deep: false,
  cross_origin_refused: false,
  egress_refused: false,
  method_not_allowed: false,
  unauthenticated: false,
  forbidden: false,
  rate_limited: true,
  quota_exceeded: false,
  too_many_streams: true,
  not_found: false,
  workflow_not_found: false,
  run_not_found: false,
  run_expired: false,
  checkpoint_expired: false,
  run_log_lost: false,
  run_active: false,
  thread_not_found: false,
  thread_busy: false,
  version_not_found: false,
  idempotency_key_reused: false,
  conflict: false,
  request_not_found: false,
  checkpoint_not_found: false,
  request_closed: false,
  request_already_answered: false,
  run_not_waiting: true,
  approval_binding_mismatch: false,
  definition_mismatch: false,
  service_unavailable: true,
  bus_unavailable: true,
  database_unavailable: true,
  storage_full: true,
  internal: false,
  node_failed: false,
  node_timeout: true,
  participant_timeout: false,
  run_timeout: false,
  run_budget_exceeded: false,
  max_steps_exceeded: false,
  max_iterations_exceeded: false,
  interrupted: true,
  canceled: false,
  provider_error: true,
  unknown_model: false,
  model_script_exhausted: false,
  tool_failed: true,
  tool_not_found: false,
  function_not_found: false,
  function_failed: false,
  expression_error: false,
  template_error: false,
  run_lost: false,
  input_timeout: false,
  run_log_limit_exceeded: false,
  file_not_found: false,
  attachment_not_supported: false,
  knowledge_base_not_found: false,
  span_not_found: false,
  dataset_not_found: false,
  invalid_document: false,
  embedding_dimension_mismatch: false,
  retrieval_failed: true,
  context_budget_exceeded: false,
  replay_diverged: false,
};

/** One field-level problem, naming the node when the field belongs to one. */
export interface FieldIssue {
  /** Path into the request body, e.g. `nodes[2].prompt` (`fieldPath` in field-issues.ts writes it). */
  field: string;
  message: string;
  /** Node id when the issue is inside a workflow node. */
  node?: string;
}

/** The project's typed error. `message` is safe to show; `detail` carries structured context. */
export class SpindleError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly issues?: FieldIssue[];
  readonly correlationId?: string;
  /** When trying again can work: seconds to wait (HTTP `Retry-After`). */
  readonly retryAfterSec?: number;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { issues?: FieldIssue[]; correlationId?: string; cause?: unknown; retryAfterSec?: number } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'SpindleError';
    this.code = code;
    this.retryable = retryableByCode[code];
    this.issues = opts.issues;
    this.correlationId = opts.correlationId;
    this.retryAfterSec = opts.retryAfterSec;
  }
}

/** The abort reason of a run someone canceled: the engine records who in `run.canceled`. */
export class RunCanceledError extends SpindleError {
  constructor(
    message: string,
    readonly canceledBy?: Actor,
  ) {
    super('canceled', message);
  }
}

/**
 * The error class user code (functions, tools) throws when its message is meant to be shown.
 * Any other error from user code is redacted to its type and a correlation id.
 */
export class PublicError extends Error {
  constructor(
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'PublicError';
  }
}

export function isSpindleError(e: unknown): e is SpindleError {
  return (
    typeof e === 'object' &&
    e !== null &&
    (e as { name?: unknown }).name === 'SpindleError' &&
    typeof (e as { code?: unknown }).code === 'string'
  );
}

/**
 * The log or the bus failed, not the run: the run lost its log to another writer (`run_lost`) or
 * NATS did not answer (`bus_unavailable`). Such an error is never recorded as a node's or a run's
 * failure; the runner stops or hands the run back, and it continues when the bus is back.
 */
export function isInfrastructureFault(e: unknown): boolean {
  return isSpindleError(e) && (e.code === 'run_lost' || e.code === 'bus_unavailable' || e.code === 'storage_full');
}

/**
 * Whether the same operation may succeed if tried again later: the one rule, by the error's code
 * (`retryableByCode`). An error that is not a `SpindleError` counts as retryable: nothing classified it
 * (a dropped connection, a driver's error), and whatever asked may simply ask again on its next pass.
 */
export function isRetryable(e: unknown): boolean {
  return !isSpindleError(e) || retryableByCode[e.code] === true;
}
