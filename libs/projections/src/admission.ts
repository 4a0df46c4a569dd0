import type { RunEventType } from '@spindle/contracts';

/**
 * Where a run stands in the gateway's admission: `waiting` (queued, not handed to the runners
 * yet), `admitted` (its start command is in the runners' queue), `running`, `paused` (waiting for
 * a person: holds no runner), `done`. A tenant's running runs are its `admitted` and `running` ones.
 */
export type AdmissionState = 'waiting' | 'admitted' | 'running' | 'paused' | 'done';

/**
 * What each event of a run's log does to its admission: the state it moves the run to, or
 * `null` for no change. `run.queued` makes the row (`waiting`); only the admission itself moves
 * a run from `waiting` to `admitted`. A run handed back (`run.yielded`) is still running: its
 * runner queues it again.
 */
export const admissionStateAfter: { readonly [T in RunEventType]: Exclude<AdmissionState, 'admitted'> | null } = {
  'run.queued': 'waiting',
  'run.started': 'running',
  'run.resumed': 'running',
  'run.awaiting': 'paused',
  'run.yielded': null,
  'run.completed': 'done',
  'run.failed': 'done',
  'run.canceled': 'done',
  'node.started': null,
  'node.completed': null,
  'node.failed': null,
  'model.started': null,
  'model.completed': null,
  'model.failed': null,
  'tool.called': null,
  'tool.returned': null,
  'loop.iteration': null,
  'branch.started': null,
  'branch.completed': null,
  'input.requested': null,
  'input.answered': null,
  'approval.requested': null,
  'approval.resolved': null,
  'checkpoint.saved': null,
  'context.truncated': null,
  'memory.compacted': null,
  'retrieval.completed': null,
  'usage.reported': null,
  'attempt.failed': null,
  custom: null,
};

/** One tenant's queue as the admission sees it. */
export interface TenantQueue {
  tenant: string;
  /** Runs waiting for admission. */
  waiting: number;
  /** Runs admitted or running. */
  active: number;
  /** Most runs it may have active (its `maxRunning`). */
  limit: number;
  /** When the admission last admitted one of its runs (ms), or null: the longest-unserved goes first. */
  lastAdmittedAt: number | null;
}

/**
 * Which tenants get the next `slots` admissions, one entry per run: round robin over the tenants
 * with waiting runs and room under their limit, the tenant served longest ago first. So a tenant
 * with a deep backlog never starves another: each round gives every waiting tenant one run.
 */
export function pickAdmissions(queues: readonly TenantQueue[], slots: number): string[] {
  const open = queues
    .filter((q) => q.waiting > 0 && q.active < q.limit)
    .map((q) => ({ ...q }))
    .sort((a, b) => (a.lastAdmittedAt ?? -Infinity) - (b.lastAdmittedAt ?? -Infinity) || (a.tenant < b.tenant ? -1 : 1));
  const picks: string[] = [];
  while (picks.length < slots && open.length > 0) {
    for (const q of [...open]) {
      if (picks.length >= slots) break;
      picks.push(q.tenant);
      q.waiting--;
      q.active++;
      if (q.waiting === 0 || q.active >= q.limit) open.splice(open.indexOf(q), 1);
    }
  }
  return picks;
}
