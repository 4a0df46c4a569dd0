import { lastEventOf, readRunLog, type Bus, type RunLogEnd, type RunLogTail } from '@spindle/bus';
import { isTerminalEvent, type RunEvent, type TokenDelta } from '@spindle/contracts';
import { runEventFrame, type RunFeedHub } from './run-feed.hub';

/** What a follower is handed: each event once, in `seq` order, and the run's token deltas as they come. */
export interface RunFollowSink {
  /** `frame` is the event's SSE frame (rendered once per feed for live events). */
  onEvent(event: RunEvent, frame: string): void;
  onToken(token: TokenDelta): void;
}

/** Where a run's log starts for a follower of a run not in the log yet (a thread's pending run): all of it. */
const LOG_START = { streamSeq: 1, cursor: { lastSeq: 0, ended: false } };

/**
 * The one way to follow a run: its history after `afterSeq`, then live, until it is terminal.
 * The live part comes from the run's shared feed (`RunFeedHub`), joined before the history is
 * read, so the two overlap and nothing falls between them; `seq` removes the overlap. A run with
 * no event yet is followed from the log's start, and the follow waits for it.
 */
export class RunFollow {
  private lastDelivered: number;
  private live = false;
  private attached = false;
  private detach?: () => void;
  private readonly pending: Array<{ event: RunEvent; frame: string }> = [];
  /** Where the history read stops: the feed delivers what comes after. */
  private historyEnd?: RunLogEnd;
  private broken?: { error: unknown };
  private finish!: () => void;
  private readonly finished = new Promise<void>((resolve) => (this.finish = resolve));

  constructor(
    private readonly bus: Bus,
    private readonly hub: RunFeedHub,
    private readonly runId: string,
    afterSeq: number,
    private readonly sink: RunFollowSink,
    /** The run's last event and log end, as the caller's check of the run just read them: not read again. */
    private readonly tail?: RunLogTail,
  ) {
    this.lastDelivered = afterSeq;
  }

  /** Joins the run's live feed (unless the run is over). A new run's stream calls it before the run is dispatched. */
  async attach(): Promise<void> {
    if (this.attached) return;
    this.attached = true;
    const last = this.tail ?? (await lastEventOf(this.bus, this.runId));
    this.historyEnd = last?.end;
    if (last && isTerminalEvent(last.event)) return;
    const from = last ? { streamSeq: last.position.streamSeq + 1, cursor: { lastSeq: last.event.seq, ended: false } } : LOG_START;
    const attachment = await this.hub.attach(this.runId, from, {
      onEvent: (event, frame) => (this.live ? this.deliver(event, frame) : this.pending.push({ event, frame })),
      onToken: (token) => this.sink.onToken(token),
      onBroken: (error) => {
        this.broken = { error };
        this.finish();
      },
    });
    this.detach = attachment.detach;
    // The feed may be another follower's, opened or advanced past `last` (read earlier, e.g. by the
    // request's run check): it never gives this one the messages it delivered before the join.
    // Stopping the history at `last` would then skip every event between the two (seen after a
    // gateway restart, when many clients of one run resume at once); read to the log's end instead,
    // which, read after the join, reaches past what the feed had delivered.
    if (attachment.deliveredThrough > from.streamSeq - 1) this.historyEnd = undefined;
  }

  /** Delivers the run to the sink until its terminal event or `close()`; throws when the feed broke (NATS trouble). */
  async run(): Promise<void> {
    try {
      await this.attach();
      // Up to where the feed starts (or the run's end): one read of the log's end per follower, not two.
      const history = await readRunLog(this.bus, this.runId, this.lastDelivered, { end: this.historyEnd });
      for (const event of history.events) this.deliver(event, runEventFrame(event));
      this.live = true;
      for (const { event, frame } of this.pending.splice(0)) this.deliver(event, frame);
      if (!this.detach) this.finish();
      await this.finished;
      if (this.broken) throw this.broken.error;
    } finally {
      this.release();
    }
  }

  /** Leaves the feed without delivering (the run could not be queued). */
  release(): void {
    this.detach?.();
    this.detach = undefined;
  }

  /** Stops following (the client left, a shutdown): `run()` returns. */
  close(): void {
    this.finish();
  }

  private deliver(event: RunEvent, frame: string) {
    if (event.seq <= this.lastDelivered) return;
    this.lastDelivered = event.seq;
    this.sink.onEvent(event, frame);
    if (isTerminalEvent(event)) this.finish();
  }
}
