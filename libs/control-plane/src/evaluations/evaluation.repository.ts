import { evaluatorScoreName, evaluatorSpecSchema, type EvaluatorSpec, type RunEvaluation } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { Kysely } from 'kysely';

/** A judgement to make now: the run it is of and the evaluator that makes it. */
export interface DueEvaluation {
  evaluationId: string;
  runId: string;
  tenant: string;
  workflow: string;
  version: number;
  evaluator: EvaluatorSpec;
  attempts: number;
  /** A workflow evaluator's judge run, once started, and when. */
  judge?: { runId: string; startedAt: Date };
}

/** The evaluations the control plane folded from the log, and what became of each. */
export class EvaluationRepository {
  constructor(private readonly db: Kysely<GatewayTables>) {}

  /** Takes (leases for `leaseMs`) up to `limit` pending evaluations, so replicas share them without doubling one. */
  async takeDue(limit: number, leaseMs: number): Promise<DueEvaluation[]> {
    return this.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('evaluations')
        .selectAll()
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', new Date())
        .orderBy('next_attempt_at')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
      if (rows.length === 0) return [];
      await trx
        .updateTable('evaluations')
        .set({ next_attempt_at: new Date(Date.now() + leaseMs) })
        .where(
          'evaluation_id',
          'in',
          rows.map((r) => r.evaluation_id),
        )
        .execute();
      return rows.map((r) => ({
        evaluationId: r.evaluation_id,
        runId: r.run_id,
        tenant: r.tenant_id,
        workflow: r.workflow,
        version: r.workflow_version,
        evaluator: evaluatorSpecSchema.parse(r.evaluator),
        attempts: r.attempts,
        ...(r.judge_run_id && r.judge_started_at && { judge: { runId: r.judge_run_id, startedAt: r.judge_started_at } }),
      }));
    });
  }

  async done(evaluationId: string, scoreId: string, costUsd?: number): Promise<void> {
    await this.db
      .updateTable('evaluations')
      .set({ status: 'done', score_id: scoreId, error: null, ...(costUsd !== undefined && { cost_usd: costUsd }) })
      .where('evaluation_id', '=', evaluationId)
      .execute();
  }

  /** The evaluator could not judge the run (or gave up trying): its reason is kept, no score is given. */
  async failed(evaluationId: string, error: string, costUsd?: number): Promise<void> {
    await this.db
      .updateTable('evaluations')
      .set((eb) => ({
        status: 'failed',
        error: error.slice(0, 2_000),
        attempts: eb('attempts', '+', 1),
        ...(costUsd !== undefined && { cost_usd: costUsd }),
      }))
      .where('evaluation_id', '=', evaluationId)
      .execute();
  }

  /** A store was not there (the trace recorder, NATS): the same evaluation again at `at`. */
  async retryAt(evaluationId: string, at: Date, error: string): Promise<void> {
    await this.db
      .updateTable('evaluations')
      .set((eb) => ({ next_attempt_at: at, error: error.slice(0, 2_000), attempts: eb('attempts', '+', 1) }))
      .where('evaluation_id', '=', evaluationId)
      .execute();
  }

  /** A workflow evaluator's judge run was started: the evaluation waits for it, looked at again at `at`. */
  async judging(evaluationId: string, judgeRunId: string, at: Date): Promise<void> {
    await this.db
      .updateTable('evaluations')
      .set({ judge_run_id: judgeRunId, judge_started_at: new Date(), next_attempt_at: at, error: null })
      .where('evaluation_id', '=', evaluationId)
      .execute();
  }

  /** Nothing went wrong, the judge has not ended yet: again at `at`, no try counted. */
  async lookAgainAt(evaluationId: string, at: Date): Promise<void> {
    await this.db.updateTable('evaluations').set({ next_attempt_at: at }).where('evaluation_id', '=', evaluationId).execute();
  }

  /** A run's evaluations, for a reader: what is pending, done (with its score) or failed (with why). */
  async ofRun(tenant: string, runId: string): Promise<RunEvaluation[]> {
    const rows = await this.db
      .selectFrom('evaluations')
      .selectAll()
      .where('run_id', '=', runId)
      .where('tenant_id', '=', tenant)
      .orderBy('evaluation_id')
      .execute();
    return rows.map((r) => {
      const evaluator = evaluatorSpecSchema.parse(r.evaluator);
      return {
        name: evaluatorScoreName(evaluator),
        type: evaluator.type,
        status: r.status,
        attempts: r.attempts,
        error: r.error,
        scoreId: r.score_id,
        judgeRunId: r.judge_run_id,
        costUsd: r.cost_usd,
      };
    });
  }
}
