import { context } from '@opentelemetry/api';
import type { Bus } from '@spindle/bus';
import { firstEventOf } from '@spindle/bus';
import type { Principal, ReplayDivergenceMode } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { Kysely } from 'kysely';
import { failedForGood } from '../start-failure';
import type { RunStarter } from '../starts/run-starter';
import { replayStartBody } from './replay-sources';

/** Replay runs started by one pass. */
const RUNS_PER_PASS = 100;

/**
 * Starts the pending runs of replays (the dispatcher's loop), locked a row at a time so replicas
 * share them: each as the replay's creator, with the recorded run's input, state and parameters,
 * under the idempotency key `rpl:<replay>:<position>` and the run id chosen when the replay was
 * made, so a retried pass starts no run twice. An outage or the start rate waits for the next
 * pass; a start refused for good is recorded on the row.
 */
export class ReplayRunner {
  constructor(
    private readonly db: Kysely<GatewayTables>,
    private readonly starter: RunStarter,
    private readonly bus: Bus,
  ) {}

  async pass(): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const pending = await trx
        .selectFrom('replay_runs')
        .innerJoin('replays', 'replays.replay_id', 'replay_runs.replay_id')
        .select([
          'replay_runs.replay_id',
          'replay_runs.position',
          'replay_runs.source_run_id',
          'replay_runs.run_id',
          'replays.caller',
          'replays.workflow',
          'replays.workflow_version',
          'replays.on_divergence',
        ])
        .where('replay_runs.status', '=', 'pending')
        .orderBy('replays.created_at')
        .orderBy('replay_runs.position')
        .limit(RUNS_PER_PASS)
        .forUpdate('replay_runs')
        .skipLocked()
        .execute();
      for (const run of pending) {
        const mark = (status: 'started' | 'failed', error?: { code: string; message: string }) =>
          trx
            .updateTable('replay_runs')
            .set({ status, ...(error && { error: JSON.stringify(error) }) })
            .where('replay_id', '=', run.replay_id)
            .where('position', '=', run.position)
            .execute();
        const queued = await firstEventOf(this.bus, run.source_run_id);
        if (!queued) {
          await mark('failed', {
            code: 'run_not_found',
            message: `the log of run ${run.source_run_id} is gone (erased or past retention)`,
          });
          continue;
        }
        try {
          await this.starter.start(
            run.caller as Principal,
            run.workflow,
            replayStartBody(queued, run.workflow_version),
            `rpl:${run.replay_id}:${run.position}`,
            context.active(),
            {
              runId: run.run_id,
              replayOf: { runId: run.source_run_id, onDivergence: run.on_divergence as ReplayDivergenceMode, replayId: run.replay_id },
            },
          );
          await mark('started');
        } catch (e) {
          const failure = failedForGood(e);
          if (!failure) throw e;
          await mark('failed', failure);
        }
      }
    });
  }
}
