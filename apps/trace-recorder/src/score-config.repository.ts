import {
  scoreConfigIssue,
  scoreDataTypeSchema,
  SpindleError,
  type ScoreConfig,
  type ScoreConfigQueryResults,
  type ScoreValue,
  type TraceQuery,
} from '@spindle/contracts';
import type { ScoreConfigsTable, TraceTables } from '@spindle/db';
import type { Kysely, Selectable } from 'kysely';

/** A tenant's score configs and its `strict` setting, and the check every score passes before it is stored. */
export class ScoreConfigRepository {
  constructor(private readonly db: Kysely<TraceTables>) {}

  async put(q: TraceQuery<'putScoreConfig'>): Promise<ScoreConfigQueryResults['putScoreConfig']> {
    const { config } = q;
    const row = {
      data_type: config.dataType,
      min: config.min ?? null,
      max: config.max ?? null,
      categories: config.categories ? JSON.stringify(config.categories) : null,
      description: config.description ?? null,
      updated_at: new Date(),
    };
    const existed = await this.find(q.tenant, q.name);
    const [stored] = await this.db
      .insertInto('score_configs')
      .values({ tenant: q.tenant, name: q.name, ...row })
      .onConflict((c) => c.columns(['tenant', 'name']).doUpdateSet(row))
      .returningAll()
      .execute();
    return { config: toConfig(stored!), created: existed === undefined };
  }

  async delete(q: TraceQuery<'deleteScoreConfig'>): Promise<ScoreConfigQueryResults['deleteScoreConfig']> {
    const deleted = await this.db.deleteFrom('score_configs').where('tenant', '=', q.tenant).where('name', '=', q.name).executeTakeFirst();
    return { deleted: Number(deleted.numDeletedRows) > 0 };
  }

  async list(q: TraceQuery<'listScoreConfigs'>): Promise<ScoreConfigQueryResults['listScoreConfigs']> {
    const rows = await this.db.selectFrom('score_configs').selectAll().where('tenant', '=', q.tenant).orderBy('name').execute();
    return { strict: await this.strict(q.tenant), configs: rows.map(toConfig) };
  }

  async setStrict(q: TraceQuery<'setScoreSettings'>): Promise<ScoreConfigQueryResults['setScoreSettings']> {
    await this.db
      .insertInto('score_settings')
      .values({ tenant: q.tenant, strict: q.strict })
      .onConflict((c) => c.column('tenant').doUpdateSet({ strict: q.strict }))
      .execute();
    return { strict: q.strict };
  }

  /** Refuses (`validation_failed`, the field named) a score its name's config, or the tenant's strictness, does not allow. */
  async check(tenant: string, name: string, value: ScoreValue): Promise<void> {
    const [config, strict] = await Promise.all([this.find(tenant, name), this.strict(tenant)]);
    const issue = scoreConfigIssue(config, strict, name, value);
    if (issue) throw new SpindleError('validation_failed', `the score does not fit its config: ${issue.message}`, { issues: [issue] });
  }

  private async find(tenant: string, name: string): Promise<ScoreConfig | undefined> {
    const row = await this.db
      .selectFrom('score_configs')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('name', '=', name)
      .executeTakeFirst();
    return row ? toConfig(row) : undefined;
  }

  private async strict(tenant: string): Promise<boolean> {
    const row = await this.db.selectFrom('score_settings').select('strict').where('tenant', '=', tenant).executeTakeFirst();
    return row?.strict ?? false;
  }
}

function toConfig(row: Selectable<ScoreConfigsTable>): ScoreConfig {
  return {
    name: row.name,
    dataType: scoreDataTypeSchema.parse(row.data_type),
    min: row.min,
    max: row.max,
    categories: (row.categories as string[] | null) ?? null,
    description: row.description,
    updatedAt: (row.updated_at as Date).toISOString(),
  };
}
