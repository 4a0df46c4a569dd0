import type { Schedule } from '@spindle/contracts';

export type ScheduleOverlap = Schedule['overlap'];

/** What a pending firing does now, given the schedule's last run if it has not ended. */
export type FiringStep =
  | { kind: 'start' }
  | { kind: 'skip'; detail: string }
  /** Left pending: the next pass looks again. */
  | { kind: 'wait' }
  | { kind: 'cancel_then_start'; runId: string };

/** The schedule's overlap policy for a firing that comes while its last run (`running`) has not ended. */
export function planFiring(overlap: ScheduleOverlap, running: string | undefined): FiringStep {
  if (running === undefined) return { kind: 'start' };
  switch (overlap) {
    case 'skip':
      return { kind: 'skip', detail: `run ${running} had not ended` };
    case 'queue':
      return { kind: 'wait' };
    case 'cancel_previous':
      return { kind: 'cancel_then_start', runId: running };
  }
}
