import { actorSchema, SpindleError, type Actor, type Principal, type ReplayDivergenceMode } from '@spindle/contracts';
import type { GatewayTables, ReplayRunsTable, ReplaysTable } from '@spindle/db';
import type { Kysely, Selectable } from 'kysely';

/** What a replay is made with: the version, and each recorded run with the id its replay run will have. */
export interface NewReplay {
  replayId: string;
  tenant: string;
  caller: Principal;
  workflow: { name: string; version: number };
  onDivergence: ReplayDivergenceMode;
  runs: Array<{ sourceRunId: string; runId: string }>;
}

export interface StoredReplay {
  replayId: string;
  workflow: { name: string; version: number };
  onDivergence: ReplayDivergenceMode;
  createdAt: string;
  createdBy: Actor;
  runs: Array<{
    sourceRunId: string;
    runId: string;
    status: 'pending' | 'started' | 'failed';
    error: { code: string; message: string } | null;
  }>;
}

const notFound = (id: string) => new SpindleError('not_found', `no replay with id "${id}"`);

/** A tenant's replays and their runs (the reports are read from the runs' logs, never stored). */
export class ReplayRepository {
  constructor(private readonly db: Kysely<GatewayTables>) {}

  /** The replay and all of its runs, or nothing. */
  async create(r: NewReplay): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('replays')
        .values({
          replay_id: r.replayId,
          tenant_id: r.tenant,
          workflow: r.workflow.name,
          workflow_version: r.workflow.version,
          on_divergence: r.onDivergence,
          caller: JSON.stringify(r.caller),
          created_at: new Date(),
        })
        .execute();
      await trx
        .insertInto('replay_runs')
        .values(
          r.runs.map((run, position) => ({
            replay_id: r.replayId,
            position,
            source_run_id: run.sourceRunId,
            run_id: run.runId,
            status: 'pending',
            error: null,
          })),
        )
        .execute();
    });
  }

  async get(tenant: string, replayId: string): Promise<StoredReplay> {
    const row = await this.db
      .selectFrom('replays')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('replay_id', '=', replayId)
      .executeTakeFirst();
    if (!row) throw notFound(replayId);
    const runs = await this.db.selectFrom('replay_runs').selectAll().where('replay_id', '=', replayId).orderBy('position').execute();
    return toReplay(row, runs);
  }

  /** The tenant's newest replays first, without their runs' reports. */
  async list(tenant: string, limit = 50): Promise<Array<Omit<StoredReplay, 'runs'> & { runs: number }>> {
    const rows = await this.db
      .selectFrom('replays')
      .selectAll()
      .select((eb) =>
        eb
          .selectFrom('replay_runs')
          .whereRef('replay_runs.replay_id', '=', 'replays.replay_id')
          .select(eb.fn.countAll<string>().as('n'))
          .as('runs'),
      )
      .where('tenant_id', '=', tenant)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ ...toReplay(row, []), runs: Number(row.runs ?? 0) }));
  }
}

function toReplay(row: Selectable<ReplaysTable>, runs: Array<Selectable<ReplayRunsTable>>): StoredReplay {
  const caller = row.caller as { actor?: unknown };
  return {
    replayId: row.replay_id,
    workflow: { name: row.workflow, version: row.workflow_version },
    onDivergence: row.on_divergence === 'call' ? 'call' : 'stop',
    createdAt: row.created_at.toISOString(),
    createdBy: actorSchema.parse(caller.actor),
    runs: runs.map((r) => ({
      sourceRunId: r.source_run_id,
      runId: r.run_id,
      status: r.status === 'started' ? 'started' : r.status === 'failed' ? 'failed' : 'pending',
      error: (r.error as { code: string; message: string } | null) ?? null,
    })),
  };
}
