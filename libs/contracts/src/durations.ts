/**
 * The two durations Spindle shows for a run or a node, defined once here and used everywhere
 * (runs list, run header, spans and timeline, compare, CLI, API fields).
 *
 * - **Wall time** (`wallMs`): from the first event (`run.queued` for a run, `node.started` for a node)
 *   to the terminal event (`run.completed` / `run.failed` / `run.canceled`, or `node.completed` /
 *   `node.failed`), or to `now` while it is still running.
 * - **Working time** (`workingMs`): wall time minus the time spent waiting. A wait opens at
 *   `run.awaiting` (a person, an approval) or `run.yielded` (handed back to the queue) and closes at the
 *   next `run.resumed` or terminal event; for a node, a wait opens at its `input.requested` and closes at
 *   the matching `input.answered`. A wait still open counts up to the end (or `now`).
 *
 * Pure functions: no clock is read; pass `now` (ms since the epoch) for runs still going.
 */

/** The few fields of a run event these functions read. */
export interface TimedEvent {
  readonly type: string;
  readonly at: string;
  readonly nodeId?: string;
  readonly data?: unknown;
}

export interface Durations {
  readonly wallMs: number;
  readonly workingMs: number;
  /** True while the run or node has not ended (the durations then count to `now`). */
  readonly running: boolean;
}

const RUN_END = new Set(['run.completed', 'run.failed', 'run.canceled']);
const NODE_END = new Set(['node.completed', 'node.failed']);
const RUN_WAIT_OPEN = new Set(['run.awaiting', 'run.yielded']);

/** Sums [open, close) intervals, clipped to [start, end]. */
function waitedMs(waits: ReadonlyArray<readonly [number, number]>, start: number, end: number): number {
  let total = 0;
  for (const [open, close] of waits) {
    const from = Math.max(open, start);
    const to = Math.min(close, end);
    if (to > from) total += to - from;
  }
  return total;
}

/** The few fields of a span `requestWaitsByParent` reads (absent and null alike mean unknown). */
export interface WaitingSpan {
  readonly kind: string;
  readonly parentSpanId?: string | null;
  readonly startedAt?: string | null;
  readonly endedAt?: string | null;
}

/** Each span's waits for a person, for `spanDurations`: its request spans' [asked, answered or now) windows. */
export function requestWaitsByParent(spans: readonly WaitingSpan[], now: number): Map<string, Array<readonly [number, number]>> {
  const waits = new Map<string, Array<readonly [number, number]>>();
  for (const s of spans) {
    if (s.kind !== 'request' || !s.parentSpanId || !s.startedAt) continue;
    const window = [Date.parse(s.startedAt), s.endedAt ? Date.parse(s.endedAt) : now] as const;
    waits.set(s.parentSpanId, [...(waits.get(s.parentSpanId) ?? []), window]);
  }
  return waits;
}

/**
 * One span's durations (a node execution, a call): wall time from `start` to `end` (or `now`), working
 * time less the `waits` inside it (its requests to a person, each [asked, answered or now)).
 * `nodeDurations` is this over a node's latest attempt.
 */
export function spanDurations(
  start: number | undefined,
  end: number | undefined,
  waits: ReadonlyArray<readonly [number, number]>,
  now: number,
): Durations {
  if (start === undefined) return { wallMs: 0, workingMs: 0, running: false };
  const stop = end ?? Math.max(now, start);
  const wallMs = Math.max(0, stop - start);
  return { wallMs, workingMs: Math.max(0, wallMs - waitedMs(waits, start, stop)), running: end === undefined };
}

/**
 * What a run's durations need of its events, folded one event at a time so a read model can keep
 * it between batches (the runs list stores it) and still give what `runDurations` gives.
 * Times are ms since the epoch; `waitedMs` sums the waits already closed.
 */
export interface RunClock {
  readonly startMs: number | null;
  readonly endMs: number | null;
  readonly waitedMs: number;
  /** When the wait still open began (awaiting a person, or handed back to the queue). */
  readonly waitingSinceMs: number | null;
}

export const EMPTY_RUN_CLOCK: RunClock = { startMs: null, endMs: null, waitedMs: 0, waitingSinceMs: null };

/** The run-level event types that move a `RunClock` once it has started; a read model may keep only these. */
export const RUN_CLOCK_EVENT_TYPES: readonly string[] = ['run.queued', 'run.resumed', ...RUN_WAIT_OPEN, ...RUN_END];

export function movesRunClock(type: string): boolean {
  return RUN_CLOCK_EVENT_TYPES.includes(type);
}

/** Folds one event (in log order) into the clock. */
export function foldRunClock(clock: RunClock, e: Pick<TimedEvent, 'type' | 'at'>): RunClock {
  const at = Date.parse(e.at);
  // The first event starts the run; a stray event after the end changes nothing.
  if (clock.endMs !== null) return clock;
  const startMs = clock.startMs ?? at;
  let endMs: number | null = null;
  let { waitedMs, waitingSinceMs } = clock;
  if (RUN_WAIT_OPEN.has(e.type)) waitingSinceMs ??= at;
  else if ((e.type === 'run.resumed' || RUN_END.has(e.type)) && waitingSinceMs !== null) {
    waitedMs += Math.max(0, at - Math.max(waitingSinceMs, startMs));
    waitingSinceMs = null;
  }
  if (RUN_END.has(e.type)) endMs = at;
  return { startMs, endMs, waitedMs, waitingSinceMs };
}

/** A run's wall and working time from its folded clock; a run still going counts to `now`. */
export function runClockDurations(clock: RunClock, now: number): Durations {
  if (clock.startMs === null) return { wallMs: 0, workingMs: 0, running: false };
  const stop = clock.endMs ?? Math.max(now, clock.startMs);
  const wallMs = Math.max(0, stop - clock.startMs);
  const openWait = clock.waitingSinceMs === null ? 0 : Math.max(0, stop - Math.max(clock.waitingSinceMs, clock.startMs));
  return { wallMs, workingMs: Math.max(0, wallMs - clock.waitedMs - openWait), running: clock.endMs === null };
}

/** A run's wall and working time from its events (in log order). */
export function runDurations(events: readonly TimedEvent[], now: number): Durations {
  let clock = EMPTY_RUN_CLOCK;
  for (const e of events) clock = foldRunClock(clock, e);
  return runClockDurations(clock, now);
}

/** One node's wall and working time from the run's events (its own events are picked by `nodeId`). */
export function nodeDurations(events: readonly TimedEvent[], nodeId: string, now: number): Durations {
  let start: number | undefined;
  let end: number | undefined;
  const opened = new Map<string, number>();
  const waits: Array<readonly [number, number]> = [];
  for (const e of events) {
    if (e.nodeId !== nodeId) continue;
    const at = Date.parse(e.at);
    if (e.type === 'node.started') {
      // A retried node restarts: the latest attempt's window counts.
      start = at;
      end = undefined;
    } else if (NODE_END.has(e.type)) end = at;
    // A tool call waiting for approval waits for a person just as a question does.
    else if (e.type === 'input.requested' || e.type === 'approval.requested') opened.set(requestIdOf(e), at);
    else if (e.type === 'input.answered' || e.type === 'approval.resolved') {
      const id = requestIdOf(e);
      const open = opened.get(id);
      if (open !== undefined) waits.push([open, at]);
      opened.delete(id);
    }
  }
  for (const open of opened.values()) waits.push([open, end ?? now]);
  return spanDurations(start, end, waits, now);
}

function requestIdOf(e: TimedEvent): string {
  const data = e.data as { requestId?: unknown } | undefined;
  return typeof data?.requestId === 'string' ? data.requestId : '';
}

/**
 * A duration for people: `850 ms`, `4.1 s`, `20 min 10 s`, `3 h 5 min`, `2 d 4 h`.
 * The one formatter for durations in the console and the CLI.
 */
export function humanDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const totalSeconds = Math.floor(ms / 1000);
  if (totalSeconds < 60) return `${totalSeconds} s`;
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  if (minutes < 60) return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const restMinutes = minutes % 60;
  if (hours < 24) return restMinutes ? `${hours} h ${restMinutes} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  const restHours = hours % 24;
  return restHours ? `${days} d ${restHours} h` : `${days} d`;
}
