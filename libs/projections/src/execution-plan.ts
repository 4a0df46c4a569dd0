import type { RunEvent, RunEventOf } from '@spindle/contracts';
import { runPhase } from './run-requests';

/** What a runner should do with a command, decided from the run's log alone. */
export type ExecutionPlan =
  | { action: 'start'; attempt: 1 }
  | {
      action: 'resume';
      reason: 'answered' | 'worker_lost' | 'handed_back';
      attempt: number;
      definitionVersion?: number;
      definition?: unknown;
    }
  /** The runner that held it died too often: close it `interrupted`. */
  | { action: 'give_up'; attempts: number }
  /** Nothing to do: ended, waiting with no new answer, or held by another runner. */
  | { action: 'skip'; why: string };

/**
 * `deliveryCount > 1` means the command was held before and not acknowledged: if the log shows
 * the run mid-execution, its runner was lost. On a first delivery the same log means another
 * runner holds the run now, so the command is not for us.
 */
export function planExecution(events: readonly RunEvent[], deliveryCount: number, maxAttempts: number): ExecutionPlan {
  const phase = runPhase(events);
  switch (phase.phase) {
    case 'ended':
      return { action: 'skip', why: `the run has ended (${phase.terminal.type})` };
    case 'queued':
      return { action: 'start', attempt: 1 };
    case 'yielded':
      return { action: 'resume', reason: 'handed_back', attempt: 1, ...upgradeIn(events) };
    case 'waiting':
      if (phase.answeredSince.length === 0) return { action: 'skip', why: 'the run waits and has no new answer' };
      return { action: 'resume', reason: 'answered', attempt: 1, ...upgradeIn(events) };
    case 'running': {
      if (deliveryCount <= 1) return { action: 'skip', why: 'another runner holds the run' };
      const attempt = phase.attempt + 1;
      if (attempt > maxAttempts) return { action: 'give_up', attempts: phase.attempt };
      return { action: 'resume', reason: 'worker_lost', attempt, ...upgradeIn(events) };
    }
  }
}

/** The latest definition version an answer asked the run to continue with, if any. */
function upgradeIn(events: readonly RunEvent[]): { definitionVersion?: number; definition?: unknown } {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (
      (e.type === 'input.answered' || e.type === 'approval.resolved') &&
      (e as RunEventOf<'input.answered'>).data.definition !== undefined
    ) {
      return { definitionVersion: e.data.definitionVersion, definition: e.data.definition };
    }
  }
  return {};
}
