import { context } from '@opentelemetry/api';
import { lastEventOf, query, type Bus } from '@spindle/bus';
import {
  builtinEvaluatorsSchema,
  isSpindleError,
  isTerminalEvent,
  type BuiltinEvaluatorSpec,
  type ScoreValue,
  type Principal,
  type RunTrace,
  type TraceQueryResults,
} from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { Logger } from '@spindle/telemetry';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { ExperimentItemsTable, ExperimentsTable } from '@spindle/db';
import { failedForGood } from '../start-failure';
import type { RunStarter } from '../starts/run-starter';
import { judgeItem, nextExperimentStep } from './experiment-plan';
import { recordEvaluatorScore } from '../evaluations/evaluator-score';

/** Experiments advanced by one pass, oldest first. */
const EXPERIMENTS_PER_PASS = 20;

/**
 * Moves running experiments on, one locked experiment at a time (so replicas share them): settles
 * the items whose runs ended (output, usage, wall time from the trace; the experiment's judgements
 * stored as the runs' scores), then starts pending items into the free slots as the experiment's
 * creator, each under the idempotency key `exp:<experiment>:<item>` so a retried pass starts no
 * run twice, until every item has ended, or the budget is spent.
 */
export class ExperimentRunner {
  constructor(
    private readonly db: Kysely<GatewayTables>,
    private readonly starter: RunStarter,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly timeoutMs = 10_000,
  ) {}

  async pass(): Promise<void> {
    const running = await this.db
      .selectFrom('experiments')
      .select('experiment_id')
      .where('status', '=', 'running')
      .orderBy('created_at')
      .limit(EXPERIMENTS_PER_PASS)
      .execute();
    for (const { experiment_id } of running) await this.advance(experiment_id);
  }

  private async advance(experimentId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const experiment = await trx
        .selectFrom('experiments')
        .selectAll()
        .where('experiment_id', '=', experimentId)
        .where('status', '=', 'running')
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (!experiment) return;
      const evaluators = builtinEvaluatorsSchema.parse(experiment.evaluators);
      const items = await trx
        .selectFrom('experiment_items')
        .selectAll()
        .where('experiment_id', '=', experimentId)
        .orderBy('position')
        .execute();
      // The runs' reads and scores go out at once (the updates queue on the transaction's one connection).
      await Promise.all(items.filter((i) => i.status === 'running').map((item) => this.settle(trx, experiment, evaluators, item)));
      const now = await trx
        .selectFrom('experiment_items')
        .selectAll()
        .where('experiment_id', '=', experimentId)
        .orderBy('position')
        .execute();
      const step = nextExperimentStep({
        concurrency: experiment.concurrency,
        maxCostUsd: experiment.max_cost_usd,
        pending: now.filter((i) => i.status === 'pending').length,
        running: now.filter((i) => i.status === 'running').length,
        spentUsd: now.reduce((sum, i) => sum + ((i.usage as { costUsd?: number } | null)?.costUsd ?? 0), 0),
      });
      if (step.skipPending) {
        await trx
          .updateTable('experiment_items')
          .set({ status: 'skipped', error: JSON.stringify({ code: 'budget_exceeded', message: 'the experiment spent its budget first' }) })
          .where('experiment_id', '=', experimentId)
          .where('status', '=', 'pending')
          .execute();
      }
      // Started at once; a pass that fails half-way is retried, and each item's key gives back its run.
      await Promise.all(
        now
          .filter((i) => i.status === 'pending')
          .slice(0, step.start)
          .map((item) => this.start(trx, experiment, item)),
      );
      if (step.end)
        await trx
          .updateTable('experiments')
          .set({ status: step.end, ended_at: new Date() })
          .where('experiment_id', '=', experimentId)
          .execute();
    });
  }

  private async start(trx: Transaction<GatewayTables>, experiment: Selectable<ExperimentsTable>, item: Selectable<ExperimentItemsTable>) {
    const mark = (set: { status: string; run_id?: string; error?: string }) =>
      trx
        .updateTable('experiment_items')
        .set(set)
        .where('experiment_id', '=', experiment.experiment_id)
        .where('item_id', '=', item.item_id)
        .execute();
    try {
      const { accepted } = await this.starter.start(
        experiment.caller as Principal,
        experiment.workflow,
        {
          input: item.input,
          version: experiment.workflow_version,
          ...(experiment.parameters ? { parameters: experiment.parameters } : {}),
        },
        `exp:${experiment.experiment_id}:${item.item_id}`,
        context.active(),
      );
      await mark({ status: 'running', run_id: accepted.runId });
    } catch (e) {
      // An outage or the start rate: the item waits for the next pass (thrown: the pass logs it).
      const failure = failedForGood(e);
      if (!failure) throw e;
      await mark({ status: 'failed', error: JSON.stringify(failure) });
    }
  }

  /** The item's run, if it has ended and the trace recorder has it: its outcome, and the experiment's judgements as its scores. */
  private async settle(
    trx: Transaction<GatewayTables>,
    experiment: Selectable<ExperimentsTable>,
    evaluators: readonly BuiltinEvaluatorSpec[],
    item: Selectable<ExperimentItemsTable>,
  ): Promise<void> {
    const runId = item.run_id!;
    const last = await lastEventOf(this.bus, runId);
    if (!last || !isTerminalEvent(last.event)) return;
    const { trace } = await query<TraceQueryResults['getTrace']>(
      this.bus,
      'trace',
      'getTrace',
      { runId, waitForSeq: last.event.seq },
      this.timeoutMs,
    );
    if (!trace || trace.run.lastSeq < last.event.seq) return;
    const output = trace.spans.find((s) => s.kind === 'run')?.output ?? null;
    const completed = trace.run.status === 'completed';
    const judged = completed
      ? judgeItem(evaluators, item.expected ?? null, { output, wallMs: trace.run.wallMs, costUsd: trace.run.usage.costUsd })
      : { scores: [], errors: {} };
    // A score its config refuses is the evaluator's failure on this item, like one that could not judge.
    const refused: Record<string, string> = {};
    for (const score of judged.scores) {
      const refusal = await this.record(experiment, item, trace, score);
      if (refusal !== undefined) refused[score.name] = refusal;
    }
    const stored = judged.scores.filter((s) => !(s.name in refused));
    const errors = { ...judged.errors, ...refused };
    await trx
      .updateTable('experiment_items')
      .set({
        status: trace.run.status === 'completed' ? 'completed' : trace.run.status === 'failed' ? 'failed' : 'canceled',
        output: completed ? JSON.stringify(output) : null,
        error: trace.run.error ? JSON.stringify({ code: trace.run.error.code, message: trace.run.error.message }) : null,
        usage: JSON.stringify(trace.run.usage),
        wall_ms: trace.run.wallMs,
        scores: JSON.stringify(Object.fromEntries(stored.map((s) => [s.name, s.value]))),
        evaluator_errors: JSON.stringify(errors),
      })
      .where('experiment_id', '=', experiment.experiment_id)
      .where('item_id', '=', item.item_id)
      .execute();
  }

  /** The judgement as the run's score, under an id of the experiment, item and name (a retried pass stores it once). */
  private async record(
    experiment: Selectable<ExperimentsTable>,
    item: Selectable<ExperimentItemsTable>,
    trace: RunTrace,
    score: { name: string; value: ScoreValue; comment: string; type: string },
  ): Promise<string | undefined> {
    return recordEvaluatorScore(
      this.bus,
      {
        tenant: trace.run.tenant,
        runId: trace.run.runId,
        key: `${experiment.experiment_id}\n${item.item_id}\n${score.name}`,
        prefix: 'ex',
      },
      { ...score, evaluator: { name: score.type, version: `experiment ${experiment.experiment_id}` } },
      this.timeoutMs,
    ).then(
      () => undefined,
      (e: unknown) => {
        if (isSpindleError(e) && !e.retryable) return e.message;
        this.logger.warn(
          { err: e, runId: trace.run.runId, experiment: experiment.experiment_id },
          'an experiment score was not stored; next pass',
        );
        throw e;
      },
    );
  }
}
