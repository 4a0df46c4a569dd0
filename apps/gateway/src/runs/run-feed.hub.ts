import { Inject, Injectable, Optional, type OnApplicationShutdown } from '@nestjs/common';
import {
  asBusFault,
  decodeRunMessage,
  EventsTail,
  RunLogCursor,
  subscribeTokenDeltas,
  type Bus,
  type LiveSubscription,
  type LogCursorState,
} from '@spindle/bus';
import { SpindleError, type RunEvent, type TokenDelta } from '@spindle/contracts';
import { BUS, LOGGER, METRICS } from '@spindle/service-kit';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';

/** A run event as the run events stream carries it: `id:` its seq, `event:` its type, `data:` the envelope. */
export function runEventFrame(event: RunEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** A listener's place on its run's feed. */
export interface FeedAttachment {
  detach: () => void;
  /**
   * The stream sequence up to which the feed had already delivered (or, not started yet, where it
   * starts) when the listener joined: the listener gets only messages after it, so its history
   * must reach at least this far.
   */
  deliveredThrough: number;
}

export interface FeedListener {
  /** `frame` is the event's SSE frame, rendered once for every listener. */
  onEvent(event: RunEvent, frame: string): void;
  onToken(token: TokenDelta): void;
  /** The feed broke (NATS trouble); the listener should end so its client reconnects. */
  onBroken(error: unknown): void;
}

/**
 * One live feed per run per gateway process, shared by every client following that run (the run
 * events stream and the protocols, through `RunFollow`): one route on the gateway's tail of the
 * run events stream (`EventsTail`) and one token subscription, each event decoded and rendered
 * once. Clients read their history themselves and use the feed only for what comes after.
 */
@Injectable()
export class RunFeedHub implements OnApplicationShutdown {
  private readonly feeds = new Map<string, RunFeed>();
  private readonly tail: EventsTail;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(LOGGER) private readonly logger: Logger,
    @Optional() @Inject(METRICS) registry?: Registry,
  ) {
    this.tail = new EventsTail(bus);
    const { feeds } = this;
    if (registry)
      new Gauge({
        name: 'spindle_live_feeds',
        help: 'Runs this gateway follows live now (one feed per run, however many clients follow it).',
        registers: [registry],
        collect() {
          this.set(feeds.size);
        },
      });
  }

  /**
   * Attaches a listener to the run's feed, which delivers the events stored after `from` (a
   * stream position and the log up to it, as a history read left it), checked like any read.
   */
  async attach(runId: string, from: { streamSeq: number; cursor: LogCursorState }, listener: FeedListener): Promise<FeedAttachment> {
    let feed = this.feeds.get(runId);
    if (!feed) {
      feed = new RunFeed(this.bus, this.tail, this.logger, runId, from, () => this.feeds.delete(runId));
      this.feeds.set(runId, feed);
    }
    // A new feed knows where it starts (what the tail had passed of the run) once it has joined.
    if (!feed.joined) await feed.ready;
    if (feed.broken) throw feed.broken.error;
    // Read in the same turn as the listener joins: every later message reaches it.
    const deliveredThrough = feed.deliveredThrough;
    // Its terminal event went by in the meantime: the listener's history read holds it.
    if (feed.ended) return { detach: () => undefined, deliveredThrough };
    const attached = feed;
    attached.add(listener);
    return { detach: () => attached.remove(listener), deliveredThrough };
  }

  /** The listeners on the run's feed once it routes the run's messages (0: no feed, or not joined yet). */
  listenersOf(runId: string): number {
    const feed = this.feeds.get(runId);
    return feed?.joined ? feed.listenerCount : 0;
  }

  onApplicationShutdown() {
    for (const feed of this.feeds.values()) feed.close(new SpindleError('service_unavailable', 'the gateway is shutting down'));
    this.tail.close();
  }
}

class RunFeed {
  readonly ready: Promise<void>;
  private readonly listeners = new Set<FeedListener>();
  private readonly tokens: LiveSubscription;
  /** Where the run's log stands as this feed has read it; unset until the first event when the feed joined late (see `start`). */
  private cursor?: RunLogCursor;
  private leaveTail?: () => void;
  private closed = false;
  /** The tail routes the run's messages here. */
  joined = false;
  /** The feed delivered the run's terminal event (and closed). */
  ended = false;
  /** The feed broke (NATS trouble, a shutdown) and closed. */
  broken?: { error: unknown };
  /** The stream sequence of the last message whose events went to the listeners (before any: the one before the start). */
  deliveredThrough: number;

  constructor(
    private readonly bus: Bus,
    private readonly tail: EventsTail,
    private readonly logger: Logger,
    private readonly runId: string,
    private readonly from: { streamSeq: number; cursor: LogCursorState },
    private readonly onClose: () => void,
  ) {
    this.deliveredThrough = from.streamSeq - 1;
    this.cursor = new RunLogCursor(from.cursor);
    this.tokens = subscribeTokenDeltas(bus, runId, {
      onMessage: (token) => {
        for (const l of this.listeners) {
          try {
            l.onToken(token);
          } catch (e) {
            this.logger.warn({ err: e, runId }, 'a stream failed to take a token');
          }
        }
      },
    });
    this.ready = this.start();
    this.ready.catch((error: unknown) => this.break(error));
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  add(listener: FeedListener) {
    this.listeners.add(listener);
  }

  remove(listener: FeedListener) {
    this.listeners.delete(listener);
    if (this.listeners.size === 0) this.close();
  }

  /** Closes the feed; `cause` (a shutdown) is what a listener joining after it is told. */
  close(cause?: unknown) {
    if (this.closed) return;
    if (cause !== undefined) this.broken ??= { error: cause };
    this.closed = true;
    this.leaveTail?.();
    this.tokens.close();
    this.onClose();
  }

  private async start() {
    const joined = await this.tail.join(this.runId, this.from.streamSeq, {
      onMessage: (msg) => this.onMessage(msg),
      onBroken: (error) => this.break(error),
    });
    this.leaveTail = joined.leave;
    if (this.closed) return joined.leave();
    this.joined = true;
    // The tail had passed messages of the run before it joined: its listeners read them as history
    // (`RunFollow` reads to the log's end then), and the feed's own check starts at its first event.
    if (joined.deliveredThrough > this.from.streamSeq - 1) {
      this.cursor = undefined;
      this.deliveredThrough = joined.deliveredThrough;
    }
  }

  /** One message of the run, in stream order: decoded, each event checked like any read, then handed to every listener. */
  private async onMessage(msg: { seq: number; subject: string; data: Uint8Array }) {
    // Before `from`: the followers read it as history (a tail that started behind them hands it too).
    if (this.closed || msg.seq < this.from.streamSeq) return;
    const decoded = await decodeRunMessage(this.bus, msg).catch((e) => Promise.reject(asBusFault(e, `reading run ${this.runId}'s log`)));
    if (!decoded.ok) return this.skip(msg.seq, decoded.reason);
    this.deliveredThrough = msg.seq;
    for (const event of decoded.events) {
      this.cursor ??= new RunLogCursor({ lastSeq: event.seq - 1, ended: false });
      const verdict = this.cursor.accept(event);
      if (!verdict.ok) {
        this.skip(msg.seq, verdict.reason);
        continue;
      }
      const frame = runEventFrame(event);
      for (const l of [...this.listeners]) l.onEvent(event, frame);
      if (this.cursor.ended) {
        this.ended = true;
        return this.close();
      }
    }
  }

  private skip(streamSeq: number, reason: string) {
    // The one reader of the log: what is not part of it (garbage, a forged repeat) never reaches a client.
    this.logger.warn({ runId: this.runId, streamSeq, reason }, 'skipping a message that is not part of the run log');
  }

  private break(error: unknown) {
    this.broken = { error };
    for (const l of [...this.listeners]) l.onBroken(error);
    this.close();
  }
}
