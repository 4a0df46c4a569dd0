import { retryableByCode, type ErrorCode, type FieldIssue } from '@spindle/contracts';

/** A code the gateway documents, or (from a newer gateway) one this client does not know yet. */
export type ApiErrorCode = ErrorCode | (string & {});

/** The problem+json body (RFC 9457) every refusal of the gateway carries. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  code?: string;
  detail?: string;
  instance?: string;
  errors?: FieldIssue[];
}

/**
 * A non-2xx answer of the gateway. Classify it by `code` (stable), not by message or status:
 * `run_not_found`, `validation_failed` (see `errors` for the fields at fault), `unauthenticated`…
 */
export class SpindleApiError extends Error {
  override readonly name = 'SpindleApiError';
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly title: string;
  readonly detail: string;
  readonly errors: FieldIssue[];
  /** From `Retry-After`: seconds to wait before trying again. */
  readonly retryAfterSec?: number;

  constructor(status: number, problem: Problem, retryAfterSec?: number) {
    const code = problem.code ?? fallbackCode(status);
    const detail = problem.detail ?? `the gateway answered ${status}`;
    super(`${code}: ${detail}`);
    this.status = status;
    this.code = code;
    this.title = problem.title ?? code.replace(/_/g, ' ');
    this.detail = detail;
    this.errors = problem.errors ?? [];
    if (retryAfterSec !== undefined) this.retryAfterSec = retryAfterSec;
  }

  /** Whether the same request can succeed later (a known code decides; else a 5xx can). */
  get retryable(): boolean {
    return Object.hasOwn(retryableByCode, this.code) ? retryableByCode[this.code as ErrorCode] : this.status >= 500;
  }
}

/** The gateway could not be reached at all (refused, reset, DNS, TLS): no HTTP answer to speak of. */
export class SpindleUnreachableError extends Error {
  override readonly name = 'SpindleUnreachableError';
  readonly code = 'unreachable';

  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`could not reach the Spindle gateway at ${url}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/** The gateway answered with something that is not the API (not JSON, not a run event): a proxy or a version mismatch. */
export class SpindleProtocolError extends Error {
  override readonly name = 'SpindleProtocolError';
  readonly code = 'protocol_error';

  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`unexpected answer from ${url}: ${reason}`);
  }
}

export function isSpindleApiError(e: unknown, code?: ApiErrorCode): e is SpindleApiError {
  return e instanceof Error && e.name === 'SpindleApiError' && (code === undefined || (e as SpindleApiError).code === code);
}

/** A refusal without a problem body (a proxy in between): the code its status usually means. */
function fallbackCode(status: number): ErrorCode {
  if (status === 401) return 'unauthenticated';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status === 502 || status === 503 || status === 504) return 'service_unavailable';
  return 'internal';
}
