import { APICallError } from '@ai-sdk/provider';
import { SpindleError, isSpindleError } from '@spindle/contracts';

const MAX_REASON_CHARS = 200;

/**
 * Maps whatever a provider call threw (or put into the stream as an `error` part) to the port's
 * contract. An abort is rethrown as the signal's reason, untouched, so the engine can tell
 * "cancelled / timed out by me" from "the provider failed" (only the latter is retryable).
 * `secrets` (API keys) are scrubbed from the message in case a server echoes a header back.
 */
export function toModelError(error: unknown, opts: { model: string; signal: AbortSignal; secrets: Array<string | undefined> }): unknown {
  if (opts.signal.aborted) return opts.signal.reason ?? error;
  if (isSpindleError(error)) return error;
  const status = APICallError.isInstance(error) ? error.statusCode : undefined;
  const prefix = status === undefined ? `${opts.model} failed` : `${opts.model} failed with HTTP ${status}`;
  const reason = scrub(shortReason(error), opts.secrets);
  return new SpindleError('provider_error', `${prefix}: ${reason}`, { cause: error });
}

function shortReason(error: unknown): string {
  const oneLine = describe(error).replace(/\s+/g, ' ').trim() || 'unknown error';
  return oneLine.length > MAX_REASON_CHARS ? `${oneLine.slice(0, MAX_REASON_CHARS)}…` : oneLine;
}

/**
 * Duck-typed on purpose: errors may come from another realm (fetch's TypeError under Jest's VM
 * fails `instanceof Error`), and stream `error` parts can carry the server's plain error object
 * (`{ message, type, code }`) rather than an Error.
 */
function describe(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error !== 'object' || error === null) return String(error);
  const e = error as { message?: unknown; cause?: unknown; error?: unknown };
  if (typeof e.message === 'string') {
    // `fetch failed` alone says nothing; its cause says e.g. `connect ECONNREFUSED 127.0.0.1:80`.
    const cause = e.cause as { message?: unknown } | undefined;
    return typeof cause?.message === 'string' && cause.message !== '' ? `${e.message} (${cause.message})` : e.message;
  }
  if (e.error !== undefined) return describe(e.error);
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

function scrub(text: string, secrets: Array<string | undefined>): string {
  let out = text;
  for (const s of secrets) {
    // Very short "keys" (e.g. `x` in a test) would shred the message; real keys are long.
    if (s !== undefined && s.length >= 8) out = out.split(s).join('[redacted]');
  }
  return out;
}
