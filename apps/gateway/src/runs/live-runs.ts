import type { Bus } from '@spindle/bus';
import type { RunEvent, TokenDelta } from '@spindle/contracts';
import type { RunFeedHub } from './run-feed.hub';
import { RunFollow } from './run-follow';

/** What a live follower of a run yields: the log's next event (with the log up to and including it), or a token delta. */
export type LiveRunItem = { event: RunEvent; log: readonly RunEvent[] } | { token: TokenDelta };

/**
 * A run's log from its start, live, as an async iterable (what the protocols fold), through the
 * same `RunFollow` as the run events stream: the run's shared feed, no consumer of its own. It
 * ends after the run's terminal event, when the caller stops, or when `signal` aborts (the client
 * left); a broken feed is thrown.
 */
export class LiveRuns {
  constructor(
    private readonly bus: Bus,
    private readonly hub: RunFeedHub,
  ) {}

  /** Each event with the log so far (one array, grown in place). */
  async *withLog(runId: string, signal?: AbortSignal): AsyncIterable<{ event: RunEvent; log: readonly RunEvent[] }> {
    for await (const item of this.follow(runId, false, signal)) if ('event' in item) yield item;
  }

  /**
   * `withLog` with the run's token deltas interleaved as they arrive, for a protocol that streams
   * text as the model says it. Tokens are not ordered against the log here: `ModelTextStreams`
   * does that, and says from the log whatever a missed token did not.
   */
  withTokens(runId: string, signal?: AbortSignal): AsyncIterable<LiveRunItem> {
    return this.follow(runId, true, signal);
  }

  /**
   * `withTokens` for a run about to be dispatched: `attach()` joins the run's feed before the
   * caller dispatches it, so the tokens a fast model says at once are not missed (they are not in
   * the log, and a follower that joins after them would show the answer only when it is complete).
   * `release()` leaves the feed when the run is not started after all.
   */
  withTokensOfNewRun(runId: string, signal?: AbortSignal): NewRunFollow {
    const opened = this.open(runId, true, signal);
    return { attach: () => opened.follow.attach(), release: () => opened.follow.release(), items: opened.items };
  }

  private follow(runId: string, tokens: boolean, signal?: AbortSignal): AsyncIterable<LiveRunItem> {
    return this.open(runId, tokens, signal).items;
  }

  /** The follower and its queue at once (the feed is joined by `attach()` or the first iteration), and the items it yields. */
  private open(runId: string, tokens: boolean, signal?: AbortSignal): { follow: RunFollow; items: AsyncIterable<LiveRunItem> } {
    const queue: Array<{ event: RunEvent } | { token: TokenDelta }> = [];
    let wake = (): void => undefined;
    const take = (item: { event: RunEvent } | { token: TokenDelta }) => {
      queue.push(item);
      wake();
    };
    const follow = new RunFollow(this.bus, this.hub, runId, 0, {
      onEvent: (event) => take({ event }),
      onToken: (token) => tokens && take({ token }),
    });
    async function* items(): AsyncIterable<LiveRunItem> {
      let ended: { ok: true } | { ok: false; error: unknown } | undefined;
      void follow
        .run()
        .then(
          () => (ended = { ok: true }),
          (error: unknown) => (ended = { ok: false, error }),
        )
        .finally(() => wake());
      const leave = () => follow.close();
      if (signal?.aborted) leave();
      signal?.addEventListener('abort', leave, { once: true });
      const log: RunEvent[] = [];
      try {
        for (;;) {
          for (let item = queue.shift(); item && !signal?.aborted; item = queue.shift()) {
            if ('token' in item) yield item;
            else {
              // The log grows as each event is yielded: a fold of it sees the run as of that event.
              log.push(item.event);
              yield { event: item.event, log };
            }
          }
          if (signal?.aborted) return;
          if (ended) {
            if (!ended.ok) throw ended.error;
            if (queue.length === 0) return;
            continue;
          }
          await new Promise<void>((resolve) => (wake = resolve));
        }
      } finally {
        signal?.removeEventListener('abort', leave);
        follow.close();
      }
    }
    return { follow, items: items() };
  }
}

/** A live follower of a run not dispatched yet (see `LiveRuns.withTokensOfNewRun`). */
export interface NewRunFollow {
  attach(): Promise<void>;
  release(): void;
  readonly items: AsyncIterable<LiveRunItem>;
}
