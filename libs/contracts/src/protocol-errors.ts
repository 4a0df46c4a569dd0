import { A2A_ERROR } from './a2a';
import type { ErrorCode } from './errors';
import { JSON_RPC_ERROR } from './json-rpc';

/** A refusal as the standard protocols tell them apart. */
type ProtocolFault = 'invalid' | 'not_found' | 'state' | 'limit' | 'outage' | 'run' | 'internal';

/** How a refusal with one Spindle code reads in each standard protocol the gateway speaks. */
export interface ProtocolError {
  /** A2A: the JSON-RPC error's code (`data.code` carries the Spindle code). */
  readonly a2a: number;
  /**
   * MCP, a tool call: the JSON-RPC error of the call when the call itself is at fault, or `null`
   * for a tool result marked `isError`, which the model reads (a quota, an outage).
   */
  readonly mcpCall: number | null;
  /**
   * Whether the refusal's own message is said (AG-UI's RUN_ERROR, A2A's and MCP's messages): an
   * internal error is said as "internal error" only, and logged. AG-UI's RUN_ERROR `code` and
   * MCP's `data.code` are the Spindle code itself.
   */
  readonly public: boolean;
}

const BY_FAULT: Record<ProtocolFault, ProtocolError> = {
  invalid: { a2a: A2A_ERROR.invalidParams, mcpCall: JSON_RPC_ERROR.invalidParams, public: true },
  not_found: { a2a: A2A_ERROR.invalidParams, mcpCall: JSON_RPC_ERROR.invalidParams, public: true },
  state: { a2a: A2A_ERROR.invalidParams, mcpCall: null, public: true },
  limit: { a2a: A2A_ERROR.internal, mcpCall: null, public: true },
  outage: { a2a: A2A_ERROR.internal, mcpCall: null, public: true },
  run: { a2a: A2A_ERROR.internal, mcpCall: null, public: true },
  internal: { a2a: A2A_ERROR.internal, mcpCall: JSON_RPC_ERROR.internal, public: false },
};

/** Every code's fault, exhaustive on purpose: a new code decides how the protocols say it. */
const FAULT_BY_CODE: Record<ErrorCode, ProtocolFault> = {
  validation_failed: 'invalid',
  invalid_json: 'invalid',
  invalid_definition: 'invalid',
  invalid_last_event_id: 'invalid',
  payload_too_large: 'invalid',
  unsupported_media_type: 'invalid',
  invalid_request: 'invalid',
  uri_too_long: 'invalid',
  headers_too_large: 'invalid',
  nesting_too_deep: 'invalid',
  cross_origin_refused: 'invalid',
  egress_refused: 'invalid',
  method_not_allowed: 'invalid',
  unauthenticated: 'invalid',
  forbidden: 'invalid',
  rate_limited: 'limit',
  quota_exceeded: 'limit',
  too_many_streams: 'limit',
  not_found: 'not_found',
  workflow_not_found: 'not_found',
  run_not_found: 'not_found',
  run_expired: 'not_found',
  checkpoint_expired: 'not_found',
  run_log_lost: 'not_found',
  version_not_found: 'not_found',
  thread_not_found: 'not_found',
  request_not_found: 'not_found',
  checkpoint_not_found: 'not_found',
  run_active: 'state',
  thread_busy: 'state',
  idempotency_key_reused: 'state',
  conflict: 'state',
  request_closed: 'state',
  request_already_answered: 'state',
  run_not_waiting: 'state',
  approval_binding_mismatch: 'state',
  definition_mismatch: 'state',
  service_unavailable: 'outage',
  bus_unavailable: 'outage',
  storage_full: 'outage',
  database_unavailable: 'outage',
  internal: 'internal',
  node_failed: 'run',
  node_timeout: 'run',
  participant_timeout: 'run',
  run_timeout: 'run',
  run_budget_exceeded: 'run',
  max_steps_exceeded: 'run',
  max_iterations_exceeded: 'run',
  interrupted: 'run',
  canceled: 'run',
  provider_error: 'run',
  unknown_model: 'run',
  model_script_exhausted: 'run',
  tool_failed: 'run',
  tool_not_found: 'run',
  function_not_found: 'run',
  function_failed: 'run',
  expression_error: 'run',
  template_error: 'run',
  run_lost: 'outage',
  input_timeout: 'run',
  run_log_limit_exceeded: 'run',
  file_not_found: 'not_found',
  attachment_not_supported: 'invalid',
  knowledge_base_not_found: 'not_found',
  span_not_found: 'not_found',
  dataset_not_found: 'not_found',
  invalid_document: 'invalid',
  embedding_dimension_mismatch: 'state',
  retrieval_failed: 'run',
  context_budget_exceeded: 'run',
  replay_diverged: 'run',
};

/** The one table from a Spindle code to each protocol's error shape. */
export function protocolErrorOf(code: ErrorCode): ProtocolError {
  return BY_FAULT[FAULT_BY_CODE[code]];
}

/** The message a protocol says for a refusal: its own, unless it is internal. */
export function protocolMessageOf(code: ErrorCode, message: string): string {
  return protocolErrorOf(code).public ? message : 'internal error';
}
