import type { MultitaskStrategy, ThreadRunStatus } from '@spindle/contracts';

/**
 * A run's status in `thread_runs`: the API's, and `starting` while the control plane starts a
 * pending one (shown as `pending`: it is not in the log yet).
 */
export type StoredThreadRunStatus = ThreadRunStatus | 'starting';
/** Runs in the log (or going there) that have not ended. */
export const RUNNING_STATUSES: readonly StoredThreadRunStatus[] = ['starting', 'queued', 'running', 'awaiting_input', 'awaiting_approval'];
/** A thread's runs that have not ended: `pending` ones wait for their turn, the others are (or are going) in the log. */
export const ACTIVE_STATUSES: readonly StoredThreadRunStatus[] = ['pending', ...RUNNING_STATUSES];

export const isActive = (status: string): boolean => ACTIVE_STATUSES.includes(status as StoredThreadRunStatus);
const isRunning = (status: string): boolean => RUNNING_STATUSES.includes(status as StoredThreadRunStatus);

/** A run of a thread as the plans read it. */
export interface ThreadRunSlot {
  runId: string;
  status: string;
  position: number;
  strategy: string;
}

/** What a start on a thread does to the runs already on it. */
export type ThreadStartPlan =
  | { kind: 'reject'; busyWith: ThreadRunSlot }
  | {
      kind: 'accept';
      /** Pending runs that never reached the log: ended here (`canceled`). */
      endNow: string[];
      /** Runs in the log: canceled through it. */
      cancel: string[];
      /** Runs whose work the new one discards (`rolled_back`, left out of the thread's state). */
      rollsBack: string[];
    };

/**
 * The multitask plan of a start on a thread (its runs in order): `reject` refuses while any has not
 * ended; `enqueue` waits for them; `interrupt` stops them; `rollback` stops them and discards their work.
 */
export function planThreadStart(strategy: MultitaskStrategy, runs: readonly ThreadRunSlot[]): ThreadStartPlan {
  const active = runs.filter((r) => isActive(r.status));
  if (active.length > 0 && strategy === 'reject') return { kind: 'reject', busyWith: active[0] };
  const stopping = strategy === 'enqueue' ? [] : active;
  return {
    kind: 'accept',
    endNow: stopping.filter((r) => r.status === 'pending').map((r) => r.runId),
    cancel: stopping.filter((r) => r.status !== 'pending').map((r) => r.runId),
    rollsBack: strategy === 'rollback' ? stopping.map((r) => r.runId) : [],
  };
}

/** The thread's next run to start, and the run whose progress it starts from (the one it interrupted). */
export interface NextThreadRun<R extends ThreadRunSlot> {
  run: R;
  progressOf?: string;
}

/**
 * The run that may start now (the thread's first pending one, once none of its runs is in the log
 * and going), or none. An `interrupt` run starts from the progress of the run before it, when that
 * one ended canceled (by it).
 */
export function nextThreadRun<R extends ThreadRunSlot>(runs: readonly R[]): NextThreadRun<R> | undefined {
  if (runs.some((r) => isRunning(r.status))) return undefined;
  const run = runs.find((r) => r.status === 'pending');
  if (!run) return undefined;
  if (run.strategy !== 'interrupt') return { run };
  const last = runs.filter((r) => r.position < run.position && r.status !== 'pending').at(-1);
  return last?.status === 'canceled' ? { run, progressOf: last.runId } : { run };
}
