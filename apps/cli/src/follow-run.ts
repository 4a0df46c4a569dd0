import { isTerminalEvent, type RunEvent } from '@spindle/contracts';
import type { CliContext } from './cli-context';
import { eventLines } from './event-line';
import { ExitCode, exitCodeOfTerminal } from './exit-codes';
import { foldLiveTree } from './live-tree';
import { InPlaceFrames } from './terminal-frame';
import { renderLiveTree } from './tree-render';

/** How a followed run is shown: a live tree on a terminal, one line per event otherwise, NDJSON with `--json`. */
interface FollowView {
  event(event: RunEvent): void;
  reconnecting(): void;
  end(): void;
}

export interface FollowRequest {
  runId: string;
  after?: number;
  /** Stop waiting after this many seconds (exit 4): a run waiting for a person never ends by itself. */
  waitTimeoutSec?: number;
  /** Draw the live tree when standard output is a terminal (`run`, `runs fork`); else lines. */
  tree: boolean;
}

/** Follows a run to its end (or the wait timeout, or Ctrl-C) and answers the exit code its end means. */
export async function followRun(ctx: CliContext, request: FollowRequest): Promise<ExitCode> {
  const view = viewFor(ctx, request);
  const stop = new AbortController();
  const timer = request.waitTimeoutSec === undefined ? undefined : setTimeout(() => stop.abort(), request.waitTimeoutSec * 1000);
  let interrupted = false;
  const interrupt = () => {
    interrupted = true;
    stop.abort();
  };
  process.once('SIGINT', interrupt);
  let last: RunEvent | undefined;
  try {
    for await (const event of ctx.client.runs.follow(request.runId, {
      after: request.after,
      signal: stop.signal,
      onConnection: (state) => state === 'retrying' && view.reconnecting(),
    })) {
      last = event;
      view.event(event);
      if (isTerminalEvent(event)) return exitCodeOfTerminal(event);
    }
  } finally {
    clearTimeout(timer);
    process.removeListener('SIGINT', interrupt);
    view.end();
  }
  const seq = last?.seq ?? request.after ?? 0;
  ctx.note(
    `spindle: run ${request.runId} has not ended${request.waitTimeoutSec !== undefined ? ` after ${request.waitTimeoutSec} s` : ''}; ` +
      `follow it again with: spindle events ${request.runId} --follow --after ${seq}`,
  );
  return interrupted ? ExitCode.interrupted : ExitCode.timedOut;
}

function viewFor(ctx: CliContext, request: FollowRequest): FollowView {
  const reconnecting = () => ctx.note('spindle: the event stream broke; reconnecting…');
  if (ctx.json) return { event: (e) => ctx.stdout.write(`${JSON.stringify(e)}\n`), reconnecting, end: () => undefined };
  if (!request.tree || !ctx.tty) {
    const line = eventLines();
    return { event: (e) => ctx.print(line(e)), reconnecting, end: () => undefined };
  }
  const events: RunEvent[] = [];
  const frames = new InPlaceFrames(ctx.stdout);
  return {
    event: (e) => {
      events.push(e);
      frames.show(() => renderLiveTree(foldLiveTree(request.runId, events, Date.now())));
    },
    // The tree stays; the note goes to standard error, which a terminal shows in the same place.
    reconnecting: () => undefined,
    end: () => frames.finish(),
  };
}
