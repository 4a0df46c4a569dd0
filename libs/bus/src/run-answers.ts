import { isSpindleError, SpindleError, type RunEvent, type RunEventDraft } from '@spindle/contracts';
import type { Bus } from './bus-connection';
import { readRunLog } from './run-log.reader';
import { RunLogWriter } from './run-log.writer';
import { publishRunCommand } from './run-commands.publisher';
import { secretFieldsOfDefinition } from './run-event-secrets';

export interface WaitingRun {
  events: RunEvent[];
  /** The draft to append, or `undefined` to append nothing (an answer already recorded). */
  decide(events: RunEvent[]): RunEventDraft | undefined;
}

/**
 * Appends an answer (or a request's time-out) to a run that is waiting, then queues the runner
 * command that continues it. `decide` sees the log as read and says what to append (throwing a
 * SpindleError to refuse). The append names the position it read: if the run moved meanwhile
 * (another answer, a cancel), the log is read again and `decide` asked again, so two answers
 * never both land on a stale view.
 */
export async function appendToWaitingRun(
  bus: Bus,
  runId: string,
  decide: (events: RunEvent[]) => RunEventDraft | undefined,
): Promise<{ seq: number; appended: boolean; events: RunEvent[] }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const { events, position } = await readRunLog(bus, runId);
    if (!position) throw new SpindleError('run_not_found', `no run with id "${runId}"`);
    const draft = decide(events);
    if (!draft) return { seq: position.seq, appended: false, events };
    try {
      // The run's definition names its secret fields; an answer's data is masked like the rest of the run's.
      const secretFields = secretFieldsOfDefinition(events[0]?.type === 'run.queued' ? events[0].data.definition : undefined);
      const seq = await new RunLogWriter(bus, runId, position, { secretFields }).write(draft);
      await publishRunCommand(bus, { type: 'run.resume', runId, afterSeq: seq, issuedAt: new Date().toISOString() });
      return { seq, appended: true, events };
    } catch (e) {
      if (!(isSpindleError(e) && e.code === 'run_lost')) throw e;
    }
  }
  throw new SpindleError('run_not_waiting', `run ${runId} kept changing while the answer was being recorded; try again`);
}
