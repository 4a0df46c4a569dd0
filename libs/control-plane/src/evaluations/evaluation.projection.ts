import {
  DEFAULT_TENANT,
  evaluatorScoreName,
  evaluatorsSchema,
  inEvaluatorSample,
  type EvaluatorSpec,
  readsOnly,
  type RunEvent,
} from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { Fold } from '@spindle/projection-kit';
import { sql, type Transaction } from 'kysely';

/** A run as its `run.queued` described it, with the evaluators that sampled it in. */
interface EvaluatedRunInfo {
  tenant: string;
  workflow: string;
  version: number;
  evaluators: EvaluatorSpec[];
}

/**
 * The judgements due: a run whose definition carried evaluators is remembered from its
 * `run.queued` (with the evaluators whose sample it is in) until it ends; its `run.completed`
 * makes one pending evaluation per evaluator, once however often the log is folded. A failed
 * or canceled run is not judged. The evaluations themselves never touch the run's log.
 */
export class EvaluationProjection implements Fold<GatewayTables> {
  /** The evaluators a run's definition carries; its end is told by the event's type. */
  readonly reads = readsOnly(['run.queued']);

  async apply(trx: Transaction<GatewayTables>, events: readonly RunEvent[]): Promise<void> {
    const queued = new Map<string, EvaluatedRunInfo>();
    const completed: Array<{ runId: string; at: string }> = [];
    const ended = new Set<string>();
    for (const e of events) {
      if (e.type === 'run.queued') {
        const info = evaluatedRunOf(e);
        if (info) queued.set(e.runId, info);
      } else if (e.type === 'run.completed') completed.push({ runId: e.runId, at: e.at });
      if (e.type === 'run.completed' || e.type === 'run.failed' || e.type === 'run.canceled') ended.add(e.runId);
    }
    if (queued.size === 0 && ended.size === 0) return;
    const runs = new Map([
      ...(await this.storedRuns(
        trx,
        [...ended].filter((id) => !queued.has(id)),
      )),
      ...queued,
    ]);
    const due = completed.flatMap(({ runId, at }) => {
      const run = runs.get(runId);
      return (run?.evaluators ?? []).map((spec) => ({
        evaluation_id: `${runId}:${evaluatorScoreName(spec)}`,
        run_id: runId,
        tenant_id: run!.tenant,
        workflow: run!.workflow,
        workflow_version: run!.version,
        evaluator: JSON.stringify(spec),
        status: 'pending' as const,
        next_attempt_at: at,
        completed_at: at,
        error: null,
        score_id: null,
      }));
    });
    if (due.length)
      await trx
        .insertInto('evaluations')
        .values(due)
        .onConflict((oc) => oc.column('evaluation_id').doNothing())
        .execute();
    const open = [...queued].filter(([runId]) => !ended.has(runId));
    if (open.length)
      await trx
        .insertInto('evaluation_runs')
        .values(
          open.map(([runId, info]) => ({
            run_id: runId,
            tenant_id: info.tenant,
            workflow: info.workflow,
            workflow_version: info.version,
            evaluators: JSON.stringify(info.evaluators),
          })),
        )
        .onConflict((oc) => oc.column('run_id').doNothing())
        .execute();
    if (ended.size)
      await trx
        .deleteFrom('evaluation_runs')
        .where('run_id', 'in', [...ended])
        .execute();
  }

  async reset(trx: Transaction<GatewayTables>): Promise<void> {
    // Evaluations stay: made once per evaluator and run, a rebuild adds none twice.
    await sql`truncate table evaluation_runs`.execute(trx);
  }

  async erase(trx: Transaction<GatewayTables>, runIds: readonly string[]): Promise<void> {
    for (const table of ['evaluation_runs', 'evaluations'] as const)
      await trx
        .deleteFrom(table)
        .where('run_id', 'in', [...runIds])
        .execute();
  }

  private async storedRuns(trx: Transaction<GatewayTables>, runIds: readonly string[]): Promise<Map<string, EvaluatedRunInfo>> {
    if (runIds.length === 0) return new Map();
    const rows = await trx.selectFrom('evaluation_runs').selectAll().where('run_id', 'in', runIds).execute();
    return new Map(
      rows.map((r) => [
        r.run_id,
        { tenant: r.tenant_id, workflow: r.workflow, version: r.workflow_version, evaluators: evaluatorsSchema.parse(r.evaluators) },
      ]),
    );
  }
}

/** The run's evaluators that sampled it in; undefined when none did (or its definition has none). */
function evaluatedRunOf(e: Extract<RunEvent, { type: 'run.queued' }>): EvaluatedRunInfo | undefined {
  // A judge's own run is never judged: a judge workflow with evaluators would judge its judgements for ever.
  if (e.data.evaluates) return undefined;
  const raw = (e.data.definition as { evaluators?: unknown } | undefined)?.evaluators;
  if (raw === undefined) return undefined;
  // Checked at save; a definition the schema no longer takes judges nothing rather than failing the fold.
  const parsed = evaluatorsSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const sampled = parsed.data.filter((spec) => inEvaluatorSample(e.runId, evaluatorScoreName(spec), spec.sampleRate));
  if (sampled.length === 0) return undefined;
  return { tenant: e.data.tenant ?? DEFAULT_TENANT, workflow: e.data.workflow.name, version: e.data.workflow.version, evaluators: sampled };
}
