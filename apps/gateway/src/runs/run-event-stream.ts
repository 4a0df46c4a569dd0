import type { ServerResponse } from 'node:http';
import { followRunLog, type Bus } from '@spindle/bus';
import { tokenDeltaSchema, type RunEvent, type TokenDelta } from '@spindle/contracts';
import type { Logger } from 'pino';
import { TokenRelay } from './token-relay';

export interface StreamOptions {
  runId: string;
  /** Stream events with `seq` greater than this. */
  afterSeq: number;
  heartbeatMs: number;
  /** Extra headers for the response (e.g. `Location` of a run started by this request). */
  headers?: Record<string, string>;
}

/**
 * Writes a run as Server-Sent Events: history after `afterSeq`, then live, until the run is
 * terminal (`id:` = seq, `event:` = type, `data:` = the envelope), with `event: token` frames
 * for streaming nodes and a comment heartbeat. Ends when the client goes away.
 */
export class RunEventStream {
  private readonly tokenSubscription;
  private readonly relay: TokenRelay;
  private stopFollowing?: () => void;

  /** Subscribes to token deltas at once, so none is missed while the run starts. */
  constructor(private readonly bus: Bus, private readonly res: ServerResponse, private readonly opts: StreamOptions, private readonly logger: Logger) {
    this.relay = new TokenRelay((t) => this.writeToken(t), opts.afterSeq);
    this.tokenSubscription = bus.nc.subscribe(bus.names.tokenSubject(opts.runId), {
      callback: (err, msg) => {
        if (err) return;
        const parsed = tokenDeltaSchema.safeParse(msg.json());
        if (parsed.success) this.relay.onToken(parsed.data);
      },
    });
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

  async pipe(): Promise<void> {
    const follower = followRunLog(this.bus, this.opts.runId, this.opts.afterSeq, { untilTerminal: true });
    const heartbeat = setInterval(() => this.res.write(': heartbeat\n\n'), this.opts.heartbeatMs);
    const onClose = () => follower.stop();
    this.stopFollowing = onClose;
    this.res.once('close', onClose);
    try {
      for await (const { event } of follower) {
        if (this.res.destroyed) break;
        this.writeEvent(event);
        this.relay.afterEvent(event);
      }
    } catch (e) {
      this.logger.warn({ err: e, runId: this.opts.runId }, 'run event stream failed');
      this.res.write(`event: error\ndata: ${JSON.stringify({ code: 'service_unavailable', detail: 'the event stream was interrupted; reconnect with Last-Event-ID' })}\n\n`);
    } finally {
      clearInterval(heartbeat);
      this.res.off('close', onClose);
      this.tokenSubscription.unsubscribe();
      follower.stop();
      this.res.end();
    }
  }

  /** Ends a live stream early (shutdown); the client resumes elsewhere with Last-Event-ID. */
  close(): void {
    this.stopFollowing?.();
  }

  /** Ends the stream without events (the run could not be queued after the headers went out). */
  abort(detail: string): void {
    this.tokenSubscription.unsubscribe();
    this.res.write(`event: error\ndata: ${JSON.stringify({ code: 'service_unavailable', detail })}\n\n`);
    this.res.end();
  }

  private writeEvent(event: RunEvent) {
    this.res.write(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  }

  private writeToken(token: TokenDelta) {
    const data = { runId: token.runId, nodeId: token.nodeId, spanId: token.spanId, index: token.index, delta: token.delta };
    this.res.write(`event: token\ndata: ${JSON.stringify(data)}\n\n`);
  }
}
