import { isNotFound, lastEventOf, query, type Bus, type StreamGuard } from '@spindle/bus';
import { predatesRunLog, SpindleError, type TraceQueryResults } from '@spindle/contracts';

/** Runs whose log's presence is kept: a few pages of a list, re-asked once they fall out. */
const MAX_KNOWN = 10_000;
/** The runs list's projection answers one run at once: it is asked not to wait for any seq. */
const TRACE_QUERY_TIMEOUT_MS = 5_000;

/**
 * Tells a run whose log a lost JetStream store took from a run that never was. A read that finds
 * the stream itself missing has the guard make it again (the read then finds no log); a run with
 * no log whose id predates the stream is refused with `410 run_log_lost` on every route that reads
 * it, whoever asks (the answer says nothing about whether the id was in use).
 */
export class RunLogLoss {
  /** Whether each run asked about that is older than the stream lost its log, for the stream made at `knownFor`. */
  private readonly known = new Map<string, boolean>();
  private knownFor?: number;

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

  /**
   * A list's runs, each whose log is gone marked `logLost`. Whether a log is there is asked once
   * per run and kept while the stream stays the same one (a lost log stays lost; a found one is
   * asked again only after the stream is made again).
   */
  async markLost<T extends { runId: string }>(runs: readonly T[]): Promise<Array<T & { logLost?: true }>> {
    return Promise.all(runs.map(async (run) => ((await this.hasLostLog(run.runId)) ? { ...run, logLost: true as const } : run)));
  }

  /**
   * The tenant the runs list has for a run whose log was lost (undefined for any other run): the
   * only owner such a run still has, so that it can be erased.
   */
  async lostRunTenant(runId: string): Promise<string | undefined> {
    if (!(await this.hasLostLog(runId))) return undefined;
    const { run } = await query<TraceQueryResults['getRun']>(this.bus, 'trace', 'getRun', { runId }, TRACE_QUERY_TIMEOUT_MS);
    return run?.tenant;
  }

  /** The run's id predates the run log's stream and it has no log there (asked once per run and stream). */
  async hasLostLog(runId: string): Promise<boolean> {
    const created = await this.guard.eventsStreamCreated();
    return predatesRunLog(runId, created) && this.isLost(runId, created);
  }

  private async isLost(runId: string, created: number): Promise<boolean> {
    // A stream made again may have lost what a run had when it was last asked.
    if (created !== this.knownFor) {
      this.known.clear();
      this.knownFor = created;
    }
    const known = this.known.get(runId);
    if (known !== undefined) return known;
    const lost = !(await this.read(() => lastEventOf(this.bus, runId)));
    if (this.known.size >= MAX_KNOWN) this.known.delete(this.known.keys().next().value as string);
    this.known.set(runId, lost);
    return lost;
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
