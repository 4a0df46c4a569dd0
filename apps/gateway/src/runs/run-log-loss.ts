import { isNotFound, lastEventOf, type Bus, type StreamGuard } from '@spindle/bus';
import { predatesRunLog, SpindleError } from '@spindle/contracts';

/**
 * Tells a run whose log a lost JetStream store took from a run that never was. A read that finds
 * the stream itself missing has the guard make it again (the read then finds no log); a run with
 * no log whose id predates the stream is refused with `410 run_log_lost` on every route that reads
 * it, whoever asks (the answer says nothing about whether the id was in use).
 */
export class RunLogLoss {
  constructor(
    private readonly bus: Bus,
    private readonly guard: StreamGuard,
  ) {}

  /** `read`, with a missing stream made again and read as no log. */
  async read<T>(read: () => Promise<T | undefined>): Promise<T | undefined> {
    try {
      return await read();
    } catch (e) {
      if (!isNotFound(e)) throw e;
      await this.guard.check();
      return undefined;
    }
  }

  /** The run's id was made before the run log's stream: whatever was known of its log may be gone. */
  async predatesLog(runId: string): Promise<boolean> {
    return predatesRunLog(runId, await this.guard.eventsStreamCreated());
  }

  /** Throws `run_log_lost` when the run has no log and its id predates the run log's stream. */
  async refuseLost(runId: string): Promise<void> {
    if (!(await this.predatesLog(runId))) return;
    if (await this.read(() => lastEventOf(this.bus, runId))) return;
    throw new SpindleError(
      'run_log_lost',
      `run ${runId} was made before the run log's stream: its log was lost with the JetStream store it was in`,
    );
  }
}
