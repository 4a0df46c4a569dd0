import {
  actorSchema,
  experimentItemStatusSchema,
  experimentStatusSchema,
  SpindleError,
  type Actor,
  type Experiment,
  type ExperimentItem,
  type ExperimentStatus,
  type Principal,
  type Usage,
} from '@spindle/contracts';
import type { ExperimentItemsTable, ExperimentsTable, GatewayTables } from '@spindle/db';
import type { Kysely, Selectable } from 'kysely';
import { experimentSummary } from './experiment-plan';

/** What an experiment is made with: the resolved dataset and workflow versions and the items' copies. */
export interface NewExperiment {
  experimentId: string;
  tenant: string;
  caller: Principal;
  name: string | null;
  dataset: { name: string; version: number };
  workflow: { name: string; version: number };
  parameters: Record<string, unknown> | null;
  evaluators: unknown[];
  concurrency: number;
  maxCostUsd: number | null;
  items: Array<{ itemId: string; input: unknown; expected: unknown }>;
}

const notFound = (id: string) => new SpindleError('not_found', `no experiment with id "${id}"`);
type ExperimentRow = Selectable<ExperimentsTable>;
type ItemRow = Selectable<ExperimentItemsTable>;

/** A tenant's experiments and their items. */
export class ExperimentRepository {
  constructor(private readonly db: Kysely<GatewayTables>) {}

  async create(e: NewExperiment): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('experiments')
        .values({
          experiment_id: e.experimentId,
          tenant_id: e.tenant,
          name: e.name,
          dataset: e.dataset.name,
          dataset_version: e.dataset.version,
          workflow: e.workflow.name,
          workflow_version: e.workflow.version,
          parameters: e.parameters ? JSON.stringify(e.parameters) : null,
          evaluators: JSON.stringify(e.evaluators),
          concurrency: e.concurrency,
          max_cost_usd: e.maxCostUsd,
          status: 'running',
          caller: JSON.stringify(e.caller),
          created_at: new Date(),
          ended_at: null,
        })
        .execute();
      const rows = e.items.map((item, position) => ({
        experiment_id: e.experimentId,
        item_id: item.itemId,
        position,
        input: JSON.stringify(item.input ?? null),
        expected: item.expected === null || item.expected === undefined ? null : JSON.stringify(item.expected),
        run_id: null,
        status: 'pending',
        output: null,
        error: null,
        usage: null,
        wall_ms: null,
      }));
      for (let i = 0; i < rows.length; i += 1_000)
        await trx
          .insertInto('experiment_items')
          .values(rows.slice(i, i + 1_000))
          .execute();
    });
  }

  async get(tenant: string, experimentId: string): Promise<Experiment> {
    const row = await this.db
      .selectFrom('experiments')
      .selectAll()
      .where('experiment_id', '=', experimentId)
      .where('tenant_id', '=', tenant)
      .executeTakeFirst();
    if (!row) throw notFound(experimentId);
    return toExperiment(row, await this.itemRows(experimentId));
  }

  async list(tenant: string, limit = 50): Promise<Experiment[]> {
    const rows = await this.db
      .selectFrom('experiments')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return Promise.all(rows.map(async (row) => toExperiment(row, await this.itemRows(row.experiment_id))));
  }

  async items(tenant: string, experimentId: string): Promise<ExperimentItem[]> {
    await this.get(tenant, experimentId);
    return (await this.itemRows(experimentId)).map(toItem);
  }

  /** Stops starting items: the pending ones are skipped, the running ones end as they will. */
  async cancel(tenant: string, experimentId: string, by: Actor): Promise<Experiment> {
    await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('experiments')
        .select(['status'])
        .where('experiment_id', '=', experimentId)
        .where('tenant_id', '=', tenant)
        .forUpdate()
        .executeTakeFirst();
      if (!row) throw notFound(experimentId);
      if (row.status !== 'running') throw new SpindleError('conflict', `experiment ${experimentId} has ended (${row.status})`);
      await trx
        .updateTable('experiments')
        .set({ status: 'canceled', ended_at: new Date() })
        .where('experiment_id', '=', experimentId)
        .execute();
      await trx
        .updateTable('experiment_items')
        .set({
          status: 'skipped',
          error: JSON.stringify({ code: 'canceled', message: `the experiment was canceled by ${by.name || by.id}` }),
        })
        .where('experiment_id', '=', experimentId)
        .where('status', '=', 'pending')
        .execute();
    });
    return this.get(tenant, experimentId);
  }

  private itemRows(experimentId: string): Promise<ItemRow[]> {
    return this.db.selectFrom('experiment_items').selectAll().where('experiment_id', '=', experimentId).orderBy('position').execute();
  }
}

export function toItem(row: ItemRow): ExperimentItem {
  return {
    itemId: row.item_id,
    position: row.position,
    input: row.input,
    expected: row.expected ?? null,
    runId: row.run_id,
    status: experimentItemStatusSchema.parse(row.status),
    output: row.output ?? null,
    error: (row.error as ExperimentItem['error']) ?? null,
    usage: (row.usage as Usage | null) ?? null,
    wallMs: row.wall_ms,
    scores: (row.scores as ExperimentItem['scores']) ?? {},
    evaluatorErrors: (row.evaluator_errors as Record<string, string>) ?? {},
  };
}

export function toExperiment(row: ExperimentRow, items: readonly ItemRow[]): Experiment {
  return {
    experimentId: row.experiment_id,
    name: row.name,
    dataset: { name: row.dataset, version: row.dataset_version },
    workflow: { name: row.workflow, version: row.workflow_version },
    parameters: (row.parameters as Record<string, unknown> | null) ?? null,
    concurrency: row.concurrency,
    maxCostUsd: row.max_cost_usd,
    status: experimentStatusSchema.parse(row.status) as ExperimentStatus,
    createdAt: row.created_at.toISOString(),
    createdBy: actorSchema.parse((row.caller as { actor: unknown }).actor),
    endedAt: row.ended_at?.toISOString() ?? null,
    summary: experimentSummary(items.map(toItem)),
  };
}
