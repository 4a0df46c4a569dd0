import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

/** What a heartbeat is: an SSE comment, which every event-stream parser (EventSource, the protocols' clients) skips. */
const HEARTBEAT = ': heartbeat\n\n';

/**
 * The one writer of an event stream to a client (the run events stream, A2A, AG-UI, the chat
 * stream): the headers, frames, a comment heartbeat every `heartbeatMs` while the stream is open
 * (an idle proxy would cut a silent one), and the end. Frames written in one turn of the event
 * loop go out as one socket write: a feed that fell behind delivers several messages in one turn,
 * and a thousand clients then cost a thousand writes, not a thousand per event. A writer that
 * pulls its frames from a source awaits `drained()` between them, so a slow client slows the
 * source instead of filling memory.
 */
export class SseWriter {
  private outbox: string[] = [];
  private heartbeat?: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    private readonly heartbeatMs: number,
  ) {
    res.once('close', () => this.stopHeartbeat());
  }

  /** Whether the headers went out (a refusal before that can still be a plain answer). */
  get opened(): boolean {
    return this.res.headersSent;
  }

  /** The stream's headers, sent at once (a client waits for them), and the heartbeat started. */
  open(headers: Record<string, string> = {}): void {
    if (this.opened) return;
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
      ...headers,
    });
    this.res.flushHeaders();
    if (!this.res.destroyed) this.heartbeat = setInterval(() => this.send(HEARTBEAT), this.heartbeatMs);
  }

  /** A frame as it goes on the wire (`id:`/`event:`/`data:` lines and the blank line). */
  send(frame: string): void {
    if (this.outbox.push(frame) === 1) setImmediate(() => this.flush());
  }

  /** A `data:` frame of `value` as JSON (the protocols' frames carry no event name). */
  data(value: unknown): void {
    this.send(`data: ${JSON.stringify(value)}\n\n`);
  }

  /** Resolves once the client has taken what was written (at once unless its socket is full), or has gone. */
  async drained(): Promise<void> {
    if (this.gone || !this.res.writableNeedDrain) return;
    // The waiter that loses the race is removed, or each wait on a slow client would leave a 'close' listener behind.
    const settled = new AbortController();
    const { signal } = settled;
    await Promise.race([once(this.res, 'drain', { signal }), once(this.res, 'close', { signal })]).finally(() => settled.abort());
  }

  /** Whether the client went away (no frame reaches it any more). */
  get gone(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  /** Writes what is waiting and ends the response. */
  end(): void {
    this.stopHeartbeat();
    this.flush();
    if (!this.res.writableEnded) this.res.end();
  }

  private stopHeartbeat() {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private flush() {
    const frames = this.outbox;
    this.outbox = [];
    if (frames.length && !this.gone) this.res.write(frames.length === 1 ? frames[0] : frames.join(''));
  }
}
