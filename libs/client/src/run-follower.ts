import {
  backoffDelay,
  isTerminalEvent,
  runEventTypes,
  sleep,
  type BackoffPolicy,
  type RunEvent,
  type TokenDelta,
} from '@spindle/contracts';
import { apiErrorOf, type HttpTransport } from './http-transport';
import { checkedEvent, readRunEventsPage } from './run-events-page';
import { isSpindleApiError, SpindleProtocolError } from './spindle-errors';
import { createSseParser, type SseMessage } from './sse-parser';

/** A model's token as the event stream relays it (not part of the log: never replayed). */
export type StreamToken = Omit<TokenDelta, 'afterSeq' | 'callSeq' | 'callIndex'>;

export interface FollowOptions {
  /** Yield the events after this `seq` (default 0: from the first). */
  after?: number;
  /** Ends the iteration (without an error) and closes the connection. */
  signal?: AbortSignal;
  /** Live model tokens, as they arrive (a reconnect does not replay them). */
  onToken?: (token: StreamToken) => void;
  /** `open` when a stream is connected, `retrying` when it broke and a new one is being opened. */
  onConnection?: (state: 'open' | 'retrying') => void;
  /** Back-off between attempts: doubles from `initialDelayMs` (500) up to `maxDelayMs` (10 000). */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number };
}

const RUN_EVENT_NAMES: ReadonlySet<string> = new Set(runEventTypes);

/**
 * A run's events from `GET /v1/runs/{id}/events` as SSE, each once and in `seq` order, ending
 * after the terminal event. A broken stream (gateway restart, 5xx, network) is reopened with
 * `Last-Event-ID`, backing off; an event seen twice is dropped, and a gap is filled from the JSON
 * events before going on. A refusal that waiting cannot change (401, 404…) rejects.
 */
export async function* followRun(transport: HttpTransport, runId: string, opts: FollowOptions = {}): AsyncGenerator<RunEvent, void> {
  const after = opts.after ?? 0;
  const backoff = new Backoff({ initialMs: opts.reconnect?.initialDelayMs ?? 500, maxMs: opts.reconnect?.maxDelayMs ?? 10_000 });
  // Aborted when the caller's signal fires or the caller stops iterating early (`break`).
  const connection = new AbortController();
  const stop = () => connection.abort();
  opts.signal?.addEventListener('abort', stop);
  if (opts.signal?.aborted) stop();
  const url = transport.url(`/v1/runs/${encodeURIComponent(runId)}/events`, { after: after || undefined });
  let lastSeq = after;
  try {
    for (let attempt = 0; !connection.signal.aborted; attempt++) {
      if (attempt > 0) {
        opts.onConnection?.('retrying');
        await backoff.wait(connection.signal);
        if (connection.signal.aborted) return;
      }
      const body = await openStream(transport, url, lastSeq > after ? lastSeq : undefined, connection.signal, backoff);
      if (!body) continue;
      opts.onConnection?.('open');
      backoff.reset();
      for await (const message of sseMessages(body, connection.signal)) {
        if (message.event === 'token') opts.onToken?.(checkedToken(message.data, url));
        if (!RUN_EVENT_NAMES.has(message.event)) continue;
        const event = checkedEvent(parseJson(message.data, url), url);
        if (event.seq <= lastSeq) continue;
        if (event.seq > lastSeq + 1) {
          for await (const missing of fillGap(transport, runId, lastSeq, event.seq, connection.signal, backoff)) {
            lastSeq = missing.seq;
            yield missing;
          }
        }
        lastSeq = event.seq;
        yield event;
        if (isTerminalEvent(event)) return;
      }
    }
  } finally {
    opts.signal?.removeEventListener('abort', stop);
    stop();
  }
}

/**
 * Opens the stream; `undefined` when trying again later can help (unreachable, 5xx, 429: the
 * delay is stretched to `Retry-After`). Any other refusal is thrown.
 */
async function openStream(
  transport: HttpTransport,
  url: string,
  lastEventId: number | undefined,
  signal: AbortSignal,
  backoff: Backoff,
): Promise<ReadableStream<Uint8Array> | undefined> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
  let res: Response;
  try {
    res = await transport.send(url, { headers, signal, cache: 'no-store' });
  } catch (e) {
    if (signal.aborted || canRetry(e)) return undefined;
    throw e;
  }
  if (!res.ok) {
    const error = await apiErrorOf(res);
    if (!canRetry(error)) throw error;
    backoff.atLeast((error.retryAfterSec ?? 0) * 1000);
    return undefined;
  }
  if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await res.body?.cancel();
    throw new SpindleProtocolError(url, `expected an event stream, got ${res.headers.get('content-type') ?? 'no content type'}`);
  }
  return res.body;
}

/** The messages of one SSE body until it ends or breaks (a broken connection just ends it: the caller reconnects). */
async function* sseMessages(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<SseMessage> {
  const ready: SseMessage[] = [];
  const parser = createSseParser((m) => ready.push(m));
  const reader = body.getReader();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        if (signal.aborted) return;
        // The connection broke mid-stream (the gateway went away): what was whole is delivered.
        chunk = { done: true, value: undefined };
      }
      if (chunk.done) parser.end();
      else parser.push(chunk.value);
      yield* ready.splice(0);
      if (chunk.done) return;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/**
 * The events strictly between `lastSeq` and `beforeSeq`, read from the JSON events. The log
 * holds them (the stream already sent a later one), so a failure that waiting can fix is waited
 * out; the events come in order, each once.
 */
async function* fillGap(
  transport: HttpTransport,
  runId: string,
  lastSeq: number,
  beforeSeq: number,
  signal: AbortSignal,
  backoff: Backoff,
): AsyncGenerator<RunEvent> {
  while (lastSeq < beforeSeq - 1 && !signal.aborted) {
    const before = lastSeq;
    try {
      const { events } = await readRunEventsPage(transport, runId, lastSeq, signal);
      for (const event of events) {
        if (event.seq !== lastSeq + 1 || event.seq >= beforeSeq) continue;
        lastSeq = event.seq;
        yield event;
      }
    } catch (e) {
      if (signal.aborted) return;
      if (!canRetry(e)) throw e;
    }
    if (lastSeq === before) await backoff.wait(signal);
  }
}

/** Whether a failure can pass by waiting: the gateway away or overloaded, not a refusal. */
function canRetry(e: unknown): boolean {
  if (isSpindleApiError(e)) return e.status >= 500 || e.status === 429;
  return e instanceof Error && e.name === 'SpindleUnreachableError';
}

function parseJson(data: string, url: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new SpindleProtocolError(url, `an event whose data is not JSON: ${data.slice(0, 80)}`);
  }
}

function checkedToken(data: string, url: string): StreamToken {
  const token = parseJson(data, url) as Partial<StreamToken> | null;
  if (typeof token?.delta !== 'string' || typeof token.spanId !== 'string' || typeof token.nodeId !== 'string') {
    throw new SpindleProtocolError(url, `a token frame without delta, spanId and nodeId: ${data.slice(0, 80)}`);
  }
  return token as StreamToken;
}

/** The waits between attempts (`backoffDelay`), counted again from the first once a stream opens. */
class Backoff {
  private attempt = 0;
  private floorMs = 0;

  constructor(private readonly policy: BackoffPolicy) {}

  reset(): void {
    this.attempt = 0;
  }

  /** Makes the next wait at least `ms` (a `Retry-After`). */
  atLeast(ms: number): void {
    this.floorMs = Math.max(this.floorMs, ms);
  }

  /** Waits the next delay (less if `signal` aborts). */
  wait(signal: AbortSignal): Promise<void> {
    const ms = Math.max(backoffDelay(++this.attempt, this.policy), this.floorMs);
    this.floorMs = 0;
    return sleep(ms, signal);
  }
}
