import type { RunEvent } from '@spindle/contracts';
import type { ApprovalTables } from '@spindle/db';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import { requestChanges } from './request-changes';
import { appliedSeqs, lockRuns, recordApplied, writeRequestChanges } from './request-rows.writer';
import { eventsToApply, type ReadRunLog } from './run-log-gaps';

/**
 * The approval service's read model of every request for a person. A batch (any runs, any
 * order, repeats allowed) is applied in one transaction, each run from just after its last
 * applied seq, so a redelivered or replayed event changes nothing.
 */
export class RequestsProjection {
  constructor(private readonly db: Kysely<ApprovalTables>, private readonly readLog: ReadRunLog, private readonly logger: Logger) {}

  /** Applies the events; answers how many were new. */
  async apply(events: readonly RunEvent[]): Promise<number> {
    const byRun = groupByRun(events);
    if (byRun.size === 0) return 0;
    return this.db.transaction().execute(async (trx) => {
      const runIds = [...byRun.keys()];
      await lockRuns(trx, runIds);
      const applied = await appliedSeqs(trx, runIds);
      const fresh: RunEvent[] = [];
      for (const [runId, batch] of byRun) {
        fresh.push(...(await eventsToApply(runId, applied.get(runId) ?? 0, batch, this.readLog, (e) =>
          this.logger.warn({ err: e, runId }, 'run log has an undecodable event; projecting its requests without it'),
        )));
      }
      if (fresh.length === 0) return 0;
      await writeRequestChanges(trx, requestChanges(fresh));
      await recordApplied(trx, fresh);
      return fresh.length;
    });
  }
}

function groupByRun(events: readonly RunEvent[]): Map<string, RunEvent[]> {
  const byRun = new Map<string, RunEvent[]>();
  for (const e of events) {
    const list = byRun.get(e.runId);
    if (list) list.push(e);
    else byRun.set(e.runId, [e]);
  }
  return byRun;
}
