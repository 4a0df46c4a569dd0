import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import type { Subscription } from '@nats-io/transport-node';
import { resolvePayload, type Bus } from '@spindle/bus';
import { isTerminalEvent, runEventSchema, tokenDeltaSchema, type RunEvent, type TokenDelta } from '@spindle/contracts';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from 'pino';

export interface FeedListener {
  /** `frame` is the event's SSE frame, rendered once for every listener. */
  onEvent(event: RunEvent, frame: string): void;
  onToken(token: TokenDelta): void;
  /** The feed broke (NATS trouble); the listener should end so its client reconnects. */
  onBroken(error: unknown): void;
}

/**
 * One live feed per run per gateway process, shared by every SSE client of that run: one
 * ordered consumer and one token subscription, each event decoded and rendered once. Clients
 * read their history themselves and use the feed only for what comes after.
 */
@Injectable()
export class RunFeedHub implements OnApplicationShutdown {
  private readonly feeds = new Map<string, RunFeed>();

  constructor(@Inject(BUS) private readonly bus: Bus, @Inject(LOGGER) private readonly logger: Logger) {}

  /** Attaches a listener to the run's feed, which delivers events stored at or after `fromStreamSeq`. */
  async attach(runId: string, fromStreamSeq: number, listener: FeedListener): Promise<() => void> {
    let feed = this.feeds.get(runId);
    if (!feed) {
      feed = new RunFeed(this.bus, this.logger, runId, fromStreamSeq, () => this.feeds.delete(runId));
      this.feeds.set(runId, feed);
    }
    feed.add(listener);
    try {
      await feed.ready;
    } catch (e) {
      feed.remove(listener);
      throw e;
    }
    const attached = feed;
    return () => attached.remove(listener);
  }

  onApplicationShutdown() {
    for (const feed of this.feeds.values()) feed.close();
  }
}

class RunFeed {
  readonly ready: Promise<void>;
  private readonly listeners = new Set<FeedListener>();
  private readonly tokens: Subscription;
  private messages?: ConsumerMessages;
  private closed = false;

  constructor(private readonly bus: Bus, private readonly logger: Logger, runId: string, fromStreamSeq: number, private readonly onClose: () => void) {
    this.tokens = bus.nc.subscribe(bus.names.tokenSubject(runId), {
      callback: (err, msg) => {
        if (err) return;
        const token = tokenDeltaSchema.safeParse(msg.json());
        if (token.success) for (const l of this.listeners) l.onToken(token.data);
      },
    });
    this.ready = this.start(runId, fromStreamSeq);
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
    this.messages?.stop();
    this.tokens.unsubscribe();
    this.onClose();
  }

  private async start(runId: string, fromStreamSeq: number) {
    const consumer = await this.bus.js.consumers.get(this.bus.names.eventsStream, {
      filter_subjects: this.bus.names.eventSubject(runId),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: fromStreamSeq,
    });
    if (this.closed) return;
    this.messages = await consumer.consume({ max_messages: 256 });
    void this.pump(this.messages);
  }

  private async pump(messages: ConsumerMessages) {
    try {
      for await (const msg of messages) {
        const parsed = runEventSchema.safeParse(safeJson(await resolvePayload(this.bus, msg.data).catch(() => msg.data)));
        if (!parsed.success) {
          // Not from a Spindle writer (they validate every event); the projections dead-letter it.
          this.logger.warn({ subject: msg.subject, streamSeq: msg.seq }, 'skipping a message that is not a run event');
          continue;
        }
        const event = parsed.data as RunEvent;
        const frame = `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
        for (const l of [...this.listeners]) l.onEvent(event, frame);
        if (isTerminalEvent(event)) break;
      }
    } catch (e) {
      for (const l of [...this.listeners]) l.onBroken(e);
    } finally {
      this.close();
    }
  }
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return undefined;
  }
}
