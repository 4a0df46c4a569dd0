import { query, type Bus } from '@spindle/bus';
import { backoffDelay, evaluatorScoreName, isSpindleError, type BackoffPolicy, type TraceQueryResults } from '@spindle/contracts';
import { judge, type Judgement } from '@spindle/engine';
import type { RunStarter } from '../starts/run-starter';
import { JUDGE_POLL_MS, WorkflowJudge } from './workflow-judge';
import type { Logger } from '@spindle/telemetry';
import type { DueEvaluation, EvaluationRepository } from './evaluation.repository';
import { recordEvaluatorScore } from './evaluator-score';

const BATCH = 20;
/** Tries of an evaluation whose stores were away before it is given up as failed. */
const MAX_ATTEMPTS = 12;
const RETRY: BackoffPolicy = { initialMs: 1_000, maxMs: 300_000, jitter: 0.2 };

/**
 * Makes the judgements due: reads the run's trace (its output, wall time and cost) from the trace
 * recorder, judges it with the built-in, and stores the score there under an id derived from the
 * evaluation, so a retry after a lost reply stores nothing twice. Off the run's path: the run
 * ended before its evaluation was due, and nothing here can change or fail it.
 */
export class EvaluationWorker {
  private readonly judge: WorkflowJudge;

  constructor(
    private readonly rows: EvaluationRepository,
    private readonly bus: Bus,
    private readonly logger: Logger,
    starter: RunStarter,
    private readonly timeoutMs = 10_000,
  ) {
    this.judge = new WorkflowJudge(starter, bus, timeoutMs);
  }

  async evaluateDue(): Promise<void> {
    for (;;) {
      const due = await this.rows.takeDue(BATCH, this.timeoutMs * 3);
      if (due.length === 0) return;
      await Promise.all(due.map((d) => this.evaluate(d)));
    }
  }

  private async evaluate(due: DueEvaluation): Promise<void> {
    let trace: TraceQueryResults['getTrace']['trace'];
    try {
      ({ trace } = await query<TraceQueryResults['getTrace']>(this.bus, 'trace', 'getTrace', { runId: due.runId }, this.timeoutMs));
    } catch (e) {
      return this.later(due, e);
    }
    // The recorder has not folded the run's end yet: soon.
    if (!trace || trace.run.status !== 'completed')
      return this.later(due, new Error('the trace recorder has not recorded the run’s end yet'));
    let judgement: Judgement;
    let costUsd: number | undefined;
    if (due.evaluator.type === 'workflow') {
      const step = await this.judge.step(due, due.evaluator, trace).catch((error: unknown) => ({ step: 'retry' as const, error }));
      if (step.step === 'started') return this.rows.judging(due.evaluationId, step.judgeRunId, new Date(Date.now() + JUDGE_POLL_MS));
      if (step.step === 'waiting') return this.rows.lookAgainAt(due.evaluationId, new Date(Date.now() + JUDGE_POLL_MS));
      if (step.step === 'retry') return this.later(due, step.error);
      if (step.step === 'failed') return this.rows.failed(due.evaluationId, step.reason, step.costUsd);
      ({ judgement, costUsd } = step);
    } else {
      try {
        const output = trace.spans.find((s) => s.kind === 'run')?.output;
        judgement = judge(due.evaluator, { output, wallMs: trace.run.wallMs, costUsd: trace.run.usage.costUsd });
      } catch (e) {
        this.logger.warn({ runId: due.runId, evaluation: due.evaluationId, err: e }, 'an evaluator could not judge a run');
        return this.rows.failed(due.evaluationId, (e as Error).message);
      }
    }
    let scoreId: string;
    try {
      scoreId = await recordEvaluatorScore(
        this.bus,
        { tenant: due.tenant, runId: due.runId, key: due.evaluationId, prefix: 'ev' },
        {
          name: evaluatorScoreName(due.evaluator),
          value: judgement.value,
          comment: judgement.comment,
          evaluator: evaluatorOf(due),
        },
        this.timeoutMs,
      );
    } catch (e) {
      // The run was erased meanwhile: nothing to score.
      if (isSpindleError(e) && e.code === 'run_not_found') return this.rows.failed(due.evaluationId, 'the run is gone');
      // Refused for good (the score does not fit its config): the evaluator's failure, said as the refusal says it.
      if (isSpindleError(e) && !e.retryable) return this.rows.failed(due.evaluationId, e.message, costUsd);
      return this.later(due, e);
    }
    await this.rows.done(due.evaluationId, scoreId, costUsd);
  }

  private async later(due: DueEvaluation, e: unknown): Promise<void> {
    const reason = (e as Error)?.message ?? String(e);
    const attempt = due.attempts + 1;
    if (attempt >= MAX_ATTEMPTS) {
      this.logger.warn(
        { runId: due.runId, evaluation: due.evaluationId, attempts: attempt },
        'an evaluation gave up: its stores stayed away',
      );
      return this.rows.failed(due.evaluationId, `gave up after ${attempt} tries: ${reason}`);
    }
    await this.rows.retryAt(due.evaluationId, new Date(Date.now() + backoffDelay(attempt, RETRY)), reason);
  }
}

/** Who judged: a built-in of the judged run's definition version, or the judge workflow (its version as it ran is its run's). */
function evaluatorOf(due: DueEvaluation): { name: string; version: string } {
  if (due.evaluator.type === 'workflow')
    return {
      name: `workflow:${due.evaluator.workflow}`,
      version: `judge run ${due.judge?.runId ?? 'unknown'} for ${due.workflow} v${due.version}`,
    };
  return { name: due.evaluator.type, version: `${due.workflow} v${due.version}` };
}
