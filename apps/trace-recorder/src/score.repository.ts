import {
  actorSchema,
  sameScoreBody,
  scoreEvaluatorSchema,
  scoreDataTypeOf,
  scoreNumberOf,
  scoreValueSchema,
  SpindleError,
  type Score,
  type ScoreQueryResults,
  type TraceQuery,
} from '@spindle/contracts';
import type { ScoresTable, TraceTables } from '@spindle/db';
import type { Insertable, Kysely, Selectable } from 'kysely';
import { ScoreConfigRepository } from './score-config.repository';

const evaluatorColumnSchema = scoreEvaluatorSchema.nullable();

/**
 * Scores beside the trace: written once under their id, read by run. The run (of the caller's
 * tenant) and the span a score names must be in the trace already; the gateway waits for the
 * run's last seq before asking, so a span the run has is never missed.
 */
export class ScoreRepository {
  /** What each score must be: checked here, where every score is stored, whoever gives it. */
  readonly configs: ScoreConfigRepository;

  constructor(
    private readonly db: Kysely<TraceTables>,
    /** Told of each score when it is first stored (the metrics). */
    private readonly onCreated: (score: Score) => void = () => undefined,
  ) {
    this.configs = new ScoreConfigRepository(db);
  }

  async record(q: TraceQuery<'recordScore'>): Promise<ScoreQueryResults['recordScore']> {
    await this.requireRun(q.tenant, q.runId);
    const { score } = q;
    if (score.spanId !== null) await this.requireSpan(q.runId, score.spanId);
    // A lost reply retried is answered with what was stored, even if the configs changed since.
    await this.configs.check(q.tenant, score.name, score.value).catch(async (e: unknown) => {
      if (!(await this.db.selectFrom('scores').select('score_id').where('score_id', '=', score.scoreId).executeTakeFirst())) throw e;
    });
    const row: Insertable<ScoresTable> = {
      score_id: score.scoreId,
      tenant: q.tenant,
      run_id: q.runId,
      span_id: score.spanId,
      name: score.name,
      data_type: scoreDataTypeOf(score.value),
      value: JSON.stringify(score.value),
      value_number: scoreNumberOf(score.value),
      comment: score.comment,
      given_by: JSON.stringify(score.by),
      evaluator: score.evaluator ? JSON.stringify(score.evaluator) : null,
      created_at: score.createdAt,
    };
    const inserted = await this.db
      .insertInto('scores')
      .values(row)
      .onConflict((c) => c.column('score_id').doNothing())
      .returningAll()
      .execute();
    if (inserted[0]) {
      const created = toScore(inserted[0]);
      this.onCreated(created);
      return { score: created, created: true };
    }
    const stored = await this.db.selectFrom('scores').selectAll().where('score_id', '=', score.scoreId).executeTakeFirstOrThrow();
    const existing = toScore(stored);
    const sameBody = sameScoreBody(existing, { ...score, comment: score.comment ?? undefined, spanId: score.spanId ?? undefined });
    if (stored.tenant !== q.tenant || stored.run_id !== q.runId || !sameBody) {
      throw new SpindleError('idempotency_key_reused', 'this Idempotency-Key already recorded a different score');
    }
    return { score: existing, created: false };
  }

  async list(q: TraceQuery<'listScores'>): Promise<ScoreQueryResults['listScores']> {
    await this.requireRun(q.tenant, q.runId);
    return { scores: await scoresOfRun(this.db, q.tenant, q.runId) };
  }

  private async requireRun(tenant: string, runId: string): Promise<void> {
    const run = await this.db.selectFrom('runs').select('tenant').where('run_id', '=', runId).executeTakeFirst();
    // Another tenant's run is not found: an id never tells a caller that someone else has it.
    if (!run || run.tenant !== tenant) throw new SpindleError('run_not_found', `no run with id "${runId}"`);
  }

  private async requireSpan(runId: string, spanId: string): Promise<void> {
    const span = await this.db
      .selectFrom('spans')
      .select('span_id')
      .where('run_id', '=', runId)
      .where('span_id', '=', spanId)
      .executeTakeFirst();
    if (!span) {
      throw new SpindleError('span_not_found', `run ${runId} has no span "${spanId}"`, {
        issues: [{ field: 'spanId', message: 'not a span of this run’s trace' }],
      });
    }
  }
}

/** A run's scores of one tenant, oldest first: what the scores list and the trace answer. */
export async function scoresOfRun(db: Kysely<TraceTables>, tenant: string, runId: string): Promise<Score[]> {
  const rows = await db
    .selectFrom('scores')
    .selectAll()
    .where('run_id', '=', runId)
    .where('tenant', '=', tenant)
    .orderBy('created_at')
    .orderBy('score_id')
    .execute();
  return rows.map(toScore);
}

function toScore(row: Selectable<ScoresTable>): Score {
  return {
    scoreId: row.score_id,
    runId: row.run_id,
    spanId: row.span_id,
    name: row.name,
    value: scoreValueSchema.parse(row.value),
    dataType: scoreDataTypeOf(scoreValueSchema.parse(row.value)),
    comment: row.comment,
    by: actorSchema.parse(row.given_by),
    evaluator: evaluatorColumnSchema.parse(row.evaluator),
    createdAt: (row.created_at as Date).toISOString(),
  };
}
