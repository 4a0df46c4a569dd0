import { lastEventOf, publishRunControl, readRunLog, RunLogWriter, type Bus, type LogPosition } from '@spindle/bus';
import {
  isRunId,
  isSpindleError,
  isTerminalEvent,
  SpindleError,
  type Actor,
  type CancelOutcome,
  type RunControl,
  type RunEvent,
} from '@spindle/contracts';
import { runPhase } from '@spindle/projections';

/** Events a waiting or handed-back run's log can end with (answers land after `run.awaiting`). */
const IDLE_TAILS = new Set(['run.awaiting', 'run.yielded', 'input.answered', 'approval.resolved']);

/**
 * Cancels a run. A queued, waiting or handed-back run is closed in the log directly (`run.canceled` appended at the
 * position the gateway read, so if a runner started it meanwhile the append conflicts and the
 * cancel goes to the runner instead); a running run's runner is told over core NATS and aborts
 * its in-flight call through the run's signal. A finished run is a conflict.
 */
export class RunCanceller {
  constructor(
    private readonly bus: Bus,
    private readonly settleMs = 3_000,
  ) {}

  async cancel(runId: string, reason: string | undefined, by: Actor): Promise<CancelOutcome> {
    const last = isRunId(runId) ? await lastEventOf(this.bus, runId) : undefined;
    if (!last) throw new SpindleError('run_not_found', `no run with id "${runId}"`);
    if (isTerminalEvent(last.event)) throw new SpindleError('conflict', `run ${runId} has already ended (${last.event.type})`);
    if (
      last.event.type === 'run.queued' &&
      (await this.closeAt(
        runId,
        last.position,
        last.event.spanId,
        reason ? `canceled before it started: ${reason}` : 'canceled before it started',
        by,
      ))
    )
      return { runId, status: 'canceled' };
    // No runner holds a waiting or handed-back run: close it in the log, which closes its open requests.
    // Only such a run can end its log with one of these; a running one goes straight to its runner.
    if (IDLE_TAILS.has(last.event.type)) {
      const { events, position } = await readRunLog(this.bus, runId);
      const phase = runPhase(events).phase;
      if ((phase === 'waiting' || phase === 'yielded') && position) {
        if (
          await this.closeAt(
            runId,
            position,
            events[0].spanId,
            reason ? `canceled while ${phase}: ${reason}` : `canceled while ${phase}`,
            by,
          )
        )
          return { runId, status: 'canceled' };
      }
    }
    const control: RunControl = { type: 'cancel', requestedAt: new Date().toISOString(), ...(reason ? { reason } : {}), canceledBy: by };
    publishRunControl(this.bus, runId, control);
    const end = await this.settled(runId);
    // The run reached another end first: the cancel came too late, like one for a finished run.
    if (end && end !== 'run.canceled') throw new SpindleError('conflict', `run ${runId} ended (${end}) before the cancel reached it`);
    return { runId, status: end ? 'canceled' : 'cancel_requested' };
  }

  /** Appends `run.canceled` at the position read; false when the run moved on meanwhile. */
  private async closeAt(runId: string, position: LogPosition, rootSpanId: string, reason: string, by: Actor): Promise<boolean> {
    try {
      await new RunLogWriter(this.bus, runId, position).write({
        type: 'run.canceled',
        spanId: rootSpanId,
        path: 'root',
        data: { reason, durationMs: 0, canceledBy: by },
      });
      return true;
    } catch (e) {
      if (isSpindleError(e) && e.code === 'run_lost') return false;
      throw e;
    }
  }

  /** Waits, briefly, for the run's terminal event: its type, or `undefined` while the run goes on. */
  private async settled(runId: string): Promise<RunEvent['type'] | undefined> {
    const deadline = Date.now() + this.settleMs;
    while (Date.now() < deadline) {
      const last = await lastEventOf(this.bus, runId);
      if (last && isTerminalEvent(last.event)) return last.event.type;
      await new Promise((r) => setTimeout(r, 50));
    }
    return undefined;
  }
}
