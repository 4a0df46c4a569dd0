import type { ServerResponse } from 'node:http';
import { lastEventOf, readRunLog, type Bus, type RunLogEnd, type RunLogTail } from '@spindle/bus';
import { isTerminalEvent, type RunEvent, type TokenDelta, type TokenFrame } from '@spindle/contracts';
import type { Logger } from 'pino';
import type { RunFeedHub } from './run-feed.hub';
import { TokenRelay } from './token-relay';

/** The last frame of a stream that broke on our side: the client reconnects from its last seq. */
const STREAM_INTERRUPTED = { code: 'service_unavailable', detail: 'the event stream was interrupted; reconnect with Last-Event-ID' };

export interface StreamOptions {
  runId: string;
  /** Stream events with `seq` greater than this. */
  afterSeq: number;
  heartbeatMs: number;
  /** Extra headers for the response (e.g. `Location` of a run started by this request). */
  headers?: Record<string, string>;
  /** Called when the client goes away before the run ended (`cancelOnDisconnect`). */
  onClientGone?: () => void;
  /** The run's last event and log end, as the request's check of the run just read them: not read again. */
  tail?: RunLogTail;
}

/**
 * Writes a run as Server-Sent Events: history after `afterSeq`, then live, until the run is
 * terminal (`id:` = seq, `event:` = type, `data:` = the envelope), with `event: token` frames
 * for streaming nodes and a comment heartbeat. The live part comes from the run's shared feed,
 * attached before the history is read, so the two overlap and nothing falls between them;
 * `seq` removes the overlap.
 */
export class RunEventStream {
  private readonly relay: TokenRelay;
  private lastWritten: number;
  private live = false;
  private attached = false;
  private detach?: () => void;
  private readonly pending: Array<{ event: RunEvent; frame: string }> = [];
  /** Where the history read stops: the feed delivers what comes after. */
  private historyEnd?: RunLogEnd;
  /** Frames written in this turn of the event loop, sent as one write when it ends. */
  private outbox: string[] = [];
  /** Set once the stream ends on our side (terminal event, shutdown, failure): a close after that is not the client leaving. */
  private endedHere = false;
  private finish!: () => void;
  private readonly finished = new Promise<void>((resolve) => (this.finish = resolve));

  constructor(
    private readonly bus: Bus,
    private readonly hub: RunFeedHub,
    private readonly res: ServerResponse,
    private readonly opts: StreamOptions,
    private readonly logger: Logger,
  ) {
    this.lastWritten = opts.afterSeq;
    this.relay = new TokenRelay((t) => this.writeToken(t), opts.afterSeq);
  }

  writeHead(): void {
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
      ...this.opts.headers,
    });
    this.res.flushHeaders();
  }

  /**
   * Joins the run's live feed (unless the run is over). Called before a new run's start command
   * is queued, so not even its first token is missed; `pipe` calls it otherwise.
   */
  async attach(): Promise<void> {
    if (this.attached) return;
    this.attached = true;
    const last = this.opts.tail ?? (await lastEventOf(this.bus, this.opts.runId));
    this.historyEnd = last?.end;
    if (!last || isTerminalEvent(last.event)) return;
    const from = { streamSeq: last.position.streamSeq + 1, cursor: { lastSeq: last.event.seq, ended: false } };
    const attachment = await this.hub.attach(this.opts.runId, from, {
      onEvent: (event, frame) => (this.live ? this.writeLive(event, frame) : this.pending.push({ event, frame })),
      onToken: (token) => this.relay.onToken(token),
      onBroken: (e) => this.fail(e),
    });
    this.detach = attachment.detach;
    // The feed may be another stream's, opened or advanced past `last` (read earlier, e.g. by the
    // request's run check): it never gives this stream the messages it delivered before the join.
    // Stopping the history at `last` would then skip every event between the two (seen after a
    // gateway restart, when many clients of one run resume at once); read to the log's end instead,
    // which, read after the join, reaches past what the feed had delivered.
    if (attachment.deliveredThrough > last.position.streamSeq) this.historyEnd = undefined;
  }

  async pipe(): Promise<void> {
    const heartbeat = setInterval(() => this.send(': heartbeat\n\n'), this.opts.heartbeatMs);
    this.res.once('close', () => {
      if (!this.endedHere) this.opts.onClientGone?.();
      this.finish();
    });
    try {
      await this.attach();
      // Up to where the feed starts (or the run's end): one read of the log's end per stream, not two.
      const history = await readRunLog(this.bus, this.opts.runId, this.opts.afterSeq, { end: this.historyEnd });
      for (const event of history.events) {
        this.writeLive(event, `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      }
      this.live = true;
      for (const { event, frame } of this.pending.splice(0)) this.writeLive(event, frame);
      if (!this.detach) this.finish();
      await this.finished;
    } catch (e) {
      this.fail(e);
    } finally {
      clearInterval(heartbeat);
      this.release();
      this.endedHere = true;
      this.flush();
      this.res.end();
    }
  }

  /** Leaves the feed without writing (the run could not be queued). */
  release(): void {
    this.detach?.();
    this.detach = undefined;
  }

  /** Ends a live stream early (shutdown); the client resumes elsewhere with Last-Event-ID. */
  close(): void {
    this.endedHere = true;
    this.finish();
  }

  private writeLive(event: RunEvent, frame: string) {
    if (event.seq <= this.lastWritten) return;
    this.send(frame);
    this.lastWritten = event.seq;
    this.relay.afterEvent(event);
    if (isTerminalEvent(event)) {
      this.endedHere = true;
      this.finish();
    }
  }

  private fail(e: unknown) {
    this.logger.warn({ err: e, runId: this.opts.runId }, 'run event stream failed');
    this.endedHere = true;
    this.send(`event: error\ndata: ${JSON.stringify(STREAM_INTERRUPTED)}\n\n`);
    this.finish();
  }

  private writeToken(token: TokenDelta) {
    const data: TokenFrame = { runId: token.runId, nodeId: token.nodeId, spanId: token.spanId, index: token.index, delta: token.delta };
    this.send(`event: token\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /**
   * One socket write per client per turn of the event loop: a feed that fell behind delivers
   * several messages in one turn, and a thousand clients then cost a thousand writes, not a
   * thousand per event. Tokens share the outbox, so their order against events holds.
   */
  private send(frame: string) {
    if (this.outbox.push(frame) === 1) setImmediate(() => this.flush());
  }

  private flush() {
    const frames = this.outbox;
    this.outbox = [];
    if (frames.length && !this.res.destroyed && !this.res.writableEnded) this.res.write(frames.length === 1 ? frames[0] : frames.join(''));
  }
}
