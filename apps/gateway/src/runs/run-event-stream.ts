import type { ServerResponse } from 'node:http';
import type { Bus, RunLogTail } from '@spindle/bus';
import { isTerminalEvent, type TokenDelta, type TokenFrame } from '@spindle/contracts';
import type { Logger } from 'pino';
import { SseWriter } from '../http/sse-writer';
import type { RunFeedHub } from './run-feed.hub';
import { RunFollow } from './run-follow';
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
 * for streaming nodes and the writer's heartbeat. The events come from `RunFollow`; tokens are
 * ordered against them by `TokenRelay`.
 */
export class RunEventStream {
  private readonly relay: TokenRelay;
  private readonly follow: RunFollow;
  private readonly writer: SseWriter;
  /** Set once the stream ends on our side (terminal event, shutdown, failure): a close after that is not the client leaving. */
  private endedHere = false;

  constructor(
    bus: Bus,
    hub: RunFeedHub,
    private readonly res: ServerResponse,
    private readonly opts: StreamOptions,
    private readonly logger: Logger,
  ) {
    this.writer = new SseWriter(res, opts.heartbeatMs);
    this.relay = new TokenRelay((t) => this.writeToken(t), opts.afterSeq);
    this.follow = new RunFollow(
      bus,
      hub,
      opts.runId,
      opts.afterSeq,
      {
        onEvent: (event, frame) => {
          this.writer.send(frame);
          this.relay.afterEvent(event);
          if (isTerminalEvent(event)) this.endedHere = true;
        },
        onToken: (token) => this.relay.onToken(token),
      },
      opts.tail,
    );
  }

  writeHead(): void {
    this.writer.open(this.opts.headers);
  }

  /**
   * Joins the run's live feed (unless the run is over). Called before a new run's start command
   * is queued, so not even its first token is missed; `pipe` calls it otherwise.
   */
  attach(): Promise<void> {
    return this.follow.attach();
  }

  async pipe(): Promise<void> {
    this.res.once('close', () => {
      if (!this.endedHere) this.opts.onClientGone?.();
      this.follow.close();
    });
    try {
      await this.follow.run();
    } catch (e) {
      this.logger.warn({ err: e, runId: this.opts.runId }, 'run event stream failed');
      this.writer.send(`event: error\ndata: ${JSON.stringify(STREAM_INTERRUPTED)}\n\n`);
    } finally {
      this.endedHere = true;
      this.writer.end();
    }
  }

  /** Leaves the feed without writing (the run could not be queued). */
  release(): void {
    this.follow.release();
  }

  /** Ends a live stream early (shutdown); the client resumes elsewhere with Last-Event-ID. */
  close(): void {
    this.endedHere = true;
    this.follow.close();
  }

  private writeToken(token: TokenDelta) {
    const data: TokenFrame = { runId: token.runId, nodeId: token.nodeId, spanId: token.spanId, index: token.index, delta: token.delta };
    this.writer.send(`event: token\ndata: ${JSON.stringify(data)}\n\n`);
  }
}
