import { DeliverPolicy, JetStreamApiCodes, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { onReconnect, type Bus } from './bus-connection';
import { asBusFault } from './bus-faults';

/** A run's place on the tail: what it is handed (in stream order), and what it is told when the tail breaks. */
export interface TailRoute {
  onMessage(msg: JsMsg): Promise<void>;
  onBroken(error: unknown): void;
}

/** Where a run's route joined the tail: the run's messages up to `deliveredThrough` (a stream sequence) are not handed to it. */
export interface TailJoin {
  deliveredThrough: number;
  leave(): void;
}

/** How long the tail stays open with no run followed (a quiet gateway does not take the whole log). */
const IDLE_CLOSE_MS = 30_000;
/** The runs whose last message the tail remembers (beyond, it forgets them all and says so). */
const REMEMBERED_RUNS = 50_000;

/**
 * One ordered consumer on the whole run events stream for a process (the gateway's live feeds),
 * handing each message to the route of the run its subject names (a message of a run nobody here
 * follows is not even decoded). A consumer per followed run cost a `CONSUMER.CREATE` and `DELETE` per client, and the
 * server matched every append against each of them.
 *
 * A route joins at the tail's position: the run's messages the tail passed before the join are
 * not handed to it. The tail remembers the last message it passed of each run, so a join says
 * exactly where its run's messages start (`deliveredThrough`), and a follower reads history only
 * that far.
 */
export class EventsTail {
  private readonly routes = new Map<string, TailRoute>();
  /** The last stream sequence of each run the tail passed (since `completeFrom`). */
  private readonly lastOfRun = new Map<string, number>();
  private open?: Promise<ConsumerMessages>;
  private messages?: ConsumerMessages;
  /** The last stream sequence taken off the consumer. */
  private position = 0;
  /** From this stream sequence on, `lastOfRun` knows every run the tail passed. */
  private completeFrom = 0;
  private idleTimer?: NodeJS.Timeout;
  /** The pump of the consumer in use, and of the one before it (a resumed tail's waits for the old one to finish). */
  private pumping: Promise<void> = Promise.resolve();
  private stopReconnectWatch?: () => void;

  constructor(private readonly bus: Bus) {}

  /**
   * Routes the run's messages stored from `fromStreamSeq` on (what came before, its follower read
   * as history) once the tail is open. A run has one route at a time.
   */
  async join(runId: string, fromStreamSeq: number, route: TailRoute): Promise<TailJoin> {
    clearTimeout(this.idleTimer);
    const open = (this.open ??= this.start(fromStreamSeq));
    open.catch(() => (this.open === open ? (this.open = undefined) : undefined));
    await open;
    // From here to the return nothing yields: no message is routed between the join and what it says.
    clearTimeout(this.idleTimer);
    this.routes.set(runId, route);
    const leave = () => {
      if (this.routes.get(runId) !== route) return;
      this.routes.delete(runId);
      if (this.routes.size > 0) return;
      this.idleTimer = setTimeout(() => this.routes.size === 0 && this.reset(), IDLE_CLOSE_MS).unref();
    };
    return { deliveredThrough: this.deliveredThrough(runId, fromStreamSeq), leave };
  }

  /** Shutdown: the consumer goes; routes left are told nothing (their feeds are closed by their owner). */
  close(): void {
    this.stopReconnectWatch?.();
    this.stopReconnectWatch = undefined;
    this.reset();
  }

  /**
   * Up to where the run's messages went by before its route joined: nowhere past the join point
   * when the tail knows the run had none since (the usual case), else the run's last one it passed,
   * else (it forgot) everything it passed.
   */
  private deliveredThrough(runId: string, fromStreamSeq: number): number {
    const before = fromStreamSeq - 1;
    if (this.position <= before) return before;
    if (fromStreamSeq < this.completeFrom) return this.position;
    return Math.max(before, this.lastOfRun.get(runId) ?? before);
  }

  private async start(fromStreamSeq: number): Promise<ConsumerMessages> {
    this.stopReconnectWatch ??= onReconnect(this.bus, () => void this.resume());
    const messages = await this.consume(fromStreamSeq);
    this.position = fromStreamSeq - 1;
    this.completeFrom = fromStreamSeq;
    this.lastOfRun.clear();
    return messages;
  }

  /** A consumer from `fromStreamSeq` on, its pump started once the previous consumer's has finished. */
  private async consume(fromStreamSeq: number): Promise<ConsumerMessages> {
    const { names } = this.bus;
    const consumer = await this.bus.js.consumers
      .get(names.eventsStream, {
        filter_subjects: names.eventsWildcard,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: Math.max(1, fromStreamSeq),
      })
      .catch((e) => Promise.reject(asBusFault(e, 'opening the run events stream')));
    const messages = await consumer
      .consume({ max_messages: 512 })
      .catch((e) => Promise.reject(asBusFault(e, 'reading the run events stream')));
    this.messages = messages;
    void this.watchStream(messages);
    const previous = this.pumping;
    this.pumping = previous.then(() => this.pump(messages).finally(() => consumer.delete().catch(() => undefined)));
    return messages;
  }

  /**
   * NATS came back (a restart, a network cut): the ordered consumer would notice only after its
   * heartbeats were missed (30 s with no event for any follower), so the tail goes on at once on a
   * new one from where it stood. Its routes notice nothing.
   */
  private async resume(): Promise<void> {
    const old = this.messages;
    if (!old) return;
    this.messages = undefined;
    old.stop();
    const resumed = this.consume(this.position + 1);
    this.open = resumed;
    await resumed.catch((e: unknown) => {
      if (this.open !== resumed) return;
      const routes = [...this.routes];
      this.reset();
      for (const [runId, route] of routes) this.breakRoute(runId, route, e);
    });
  }

  private async pump(messages: ConsumerMessages): Promise<void> {
    let failure: unknown = new Error('the run events stream ended');
    try {
      for await (const msg of messages) {
        // Replaced (a resume) or stopped: what it still holds comes again on its successor.
        if (this.messages !== messages) break;
        this.position = msg.seq;
        const runId = this.bus.names.runIdFromEventSubject(msg.subject);
        if (runId === undefined) continue;
        this.remember(runId, msg.seq);
        const route = this.routes.get(runId);
        // A route's failure is its own (it ends its run's feed): the other runs go on.
        if (route) await route.onMessage(msg).catch((e: unknown) => this.breakRoute(runId, route, e));
      }
    } catch (e) {
      failure = e;
    }
    // Stopped on purpose (idle, shutdown): nothing to tell.
    if (this.messages !== messages) return;
    // Every route is told (its followers end their streams and reconnect); the next join opens the tail again.
    const routes = [...this.routes];
    this.reset();
    for (const [runId, route] of routes) this.breakRoute(runId, route, failure);
  }

  /**
   * A NATS restart only loses the ordered consumer, which recreates itself where it was; a stream
   * that is gone (a lost store) ends the tail, so its followers reconnect instead of waiting.
   */
  private async watchStream(messages: ConsumerMessages): Promise<void> {
    for await (const status of messages.status()) {
      if (status.type !== 'consumer_deleted' && status.type !== 'stream_not_found') continue;
      const gone = await this.bus.jsm.streams.info(this.bus.names.eventsStream).then(
        () => false,
        (e: unknown) => (e as { code?: unknown })?.code === JetStreamApiCodes.StreamNotFound,
      );
      if (gone) messages.stop(new Error('the run events stream is gone'));
    }
  }

  private remember(runId: string, streamSeq: number): void {
    if (this.lastOfRun.size >= REMEMBERED_RUNS && !this.lastOfRun.has(runId)) {
      this.lastOfRun.clear();
      this.completeFrom = streamSeq;
    }
    this.lastOfRun.set(runId, streamSeq);
  }

  private breakRoute(runId: string, route: TailRoute, error: unknown): void {
    if (this.routes.get(runId) === route) this.routes.delete(runId);
    route.onBroken(error);
  }

  private reset(): void {
    clearTimeout(this.idleTimer);
    const messages = this.messages;
    this.messages = undefined;
    this.open = undefined;
    messages?.stop();
  }
}
