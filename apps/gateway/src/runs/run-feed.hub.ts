import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import {
  followRunLog,
  subscribeTokenDeltas,
  type Bus,
  type LiveSubscription,
  type LogCursorState,
  type RunLogFollower,
} from '@spindle/bus';
import type { RunEvent, TokenDelta } from '@spindle/contracts';
import { BUS, LOGGER } from '@spindle/service-kit';
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
 * events stream and the protocols, through `RunFollow`): one
 * ordered consumer and one token subscription, each event decoded and rendered once. Clients
 * read their history themselves and use the feed only for what comes after.
 */
@Injectable()
export class RunFeedHub implements OnApplicationShutdown {
  private readonly feeds = new Map<string, RunFeed>();

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Attaches a listener to the run's feed, which delivers the events stored after `from` (a
   * stream position and the log up to it, as a history read left it), checked like any read.
   */
  async attach(runId: string, from: { streamSeq: number; cursor: LogCursorState }, listener: FeedListener): Promise<FeedAttachment> {
    let feed = this.feeds.get(runId);
    if (!feed) {
      feed = new RunFeed(this.bus, this.logger, runId, from, () => this.feeds.delete(runId));
      this.feeds.set(runId, feed);
    }
    // Read in the same turn as the listener joins: every later message reaches it.
    const deliveredThrough = feed.deliveredThrough;
    feed.add(listener);
    try {
      await feed.ready;
    } catch (e) {
      feed.remove(listener);
      throw e;
    }
    const attached = feed;
    return { detach: () => attached.remove(listener), deliveredThrough };
  }

  onApplicationShutdown() {
    for (const feed of this.feeds.values()) feed.close();
  }
}

class RunFeed {
  readonly ready: Promise<void>;
  private readonly listeners = new Set<FeedListener>();
  private readonly tokens: LiveSubscription;
  private follower?: RunLogFollower;
  private closed = false;
  /** The stream sequence of the last message whose events went to the listeners (before any: the one before the start). */
  deliveredThrough: number;

  constructor(
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly runId: string,
    from: { streamSeq: number; cursor: LogCursorState },
    private readonly onClose: () => void,
  ) {
    this.deliveredThrough = from.streamSeq - 1;
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
    this.ready = this.start(from);
    this.ready.catch(() => this.close());
  }

  add(listener: FeedListener) {
    this.listeners.add(listener);
  }

  remove(listener: FeedListener) {
    this.listeners.delete(listener);
    if (this.listeners.size === 0) this.close();
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.follower?.stop();
    this.tokens.close();
    this.onClose();
  }

  private async start(from: { streamSeq: number; cursor: LogCursorState }) {
    // The one reader of the log: what is not part of it (garbage, a forged repeat) never reaches a client.
    this.follower = followRunLog(this.bus, this.runId, 0, {
      from,
      untilTerminal: true,
      onSkip: (skipped) => this.logger.warn(skipped, 'skipping a message that is not part of the run log'),
    });
    const iterator = this.follower[Symbol.asyncIterator]();
    // The first step opens the consumer: `ready` means the feed delivers from here on.
    const first = iterator.next();
    void this.pump(first, iterator);
  }

  private async pump(
    first: Promise<IteratorResult<{ event: RunEvent; streamSeq: number }>>,
    iterator: AsyncIterator<{ event: RunEvent; streamSeq: number }>,
  ) {
    try {
      for (let next = await first; !next.done; next = await iterator.next()) {
        const event = next.value.event;
        this.deliveredThrough = next.value.streamSeq;
        const frame = runEventFrame(event);
        for (const l of [...this.listeners]) l.onEvent(event, frame);
      }
    } catch (e) {
      for (const l of [...this.listeners]) l.onBroken(e);
    } finally {
      this.close();
    }
  }
}
