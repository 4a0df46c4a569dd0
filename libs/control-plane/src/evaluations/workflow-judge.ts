import { context } from '@opentelemetry/api';
import { lastEventOf, query, type Bus } from '@spindle/bus';
import {
  isSpindleError,
  isTerminalEvent,
  type Principal,
  type RunTrace,
  type TraceQueryResults,
  type WorkflowEvaluatorSpec,
} from '@spindle/contracts';
import { EvaluatorFailure, workflowVerdict, type Judgement } from '@spindle/engine';
import { failedForGood } from '../start-failure';
import type { RunStarter } from '../starts/run-starter';
import type { DueEvaluation } from './evaluation.repository';

/** How often a waiting evaluation looks at its judge run, and how long the judge may take. */
export const JUDGE_POLL_MS = 500;
export const JUDGE_TIMEOUT_MS = 15 * 60_000;

/** Where a workflow evaluation stands after one look. */
export type JudgeStep =
  | { step: 'started'; judgeRunId: string }
  | { step: 'waiting' }
  | { step: 'judged'; judgement: Judgement; costUsd: number }
  | { step: 'failed'; reason: string; costUsd?: number }
  /** An outage or the start rate: the evaluation tries again later (counted). */
  | { step: 'retry'; error: unknown };

/**
 * A workflow evaluator: starts its judge workflow as a run of the judged run's tenant (given by
 * the system on the evaluator's behalf) with the judged run's input, output, wall time and cost,
 * under the idempotency key of the evaluation (a retried start makes one run); then, once the
 * judge run ended, reads its verdict and its cost from its trace.
 */
export class WorkflowJudge {
  constructor(
    private readonly starter: RunStarter,
    private readonly bus: Bus,
    private readonly timeoutMs: number,
  ) {}

  async step(due: DueEvaluation, spec: WorkflowEvaluatorSpec, judged: RunTrace): Promise<JudgeStep> {
    if (!due.judge) return this.start(due, spec, judged);
    if (Date.now() - due.judge.startedAt.getTime() > JUDGE_TIMEOUT_MS)
      return { step: 'failed', reason: `the judge run ${due.judge.runId} did not end within ${JUDGE_TIMEOUT_MS / 60_000} minutes` };
    const last = await lastEventOf(this.bus, due.judge.runId);
    if (!last || !isTerminalEvent(last.event)) return { step: 'waiting' };
    const { trace } = await query<TraceQueryResults['getTrace']>(
      this.bus,
      'trace',
      'getTrace',
      { runId: due.judge.runId, waitForSeq: last.event.seq },
      this.timeoutMs,
    );
    if (!trace || trace.run.lastSeq < last.event.seq) return { step: 'waiting' };
    const costUsd = trace.run.usage.costUsd ?? 0;
    if (trace.run.status !== 'completed')
      return {
        step: 'failed',
        reason: `the judge run ${due.judge.runId} ${trace.run.status}: ${trace.run.error?.message ?? ''}`.trim(),
        costUsd,
      };
    try {
      return { step: 'judged', judgement: workflowVerdict(spec, trace.spans.find((s) => s.kind === 'run')?.output), costUsd };
    } catch (e) {
      if (e instanceof EvaluatorFailure) return { step: 'failed', reason: e.message, costUsd };
      throw e;
    }
  }

  private async start(due: DueEvaluation, spec: WorkflowEvaluatorSpec, judged: RunTrace): Promise<JudgeStep> {
    const run = judged.spans.find((s) => s.kind === 'run');
    const judge: Principal = {
      tenant: due.tenant,
      actor: { kind: 'system', id: 'evaluator', name: 'evaluator' },
      scopes: new Set(['runs:read', 'runs:write']),
      operator: false,
      via: 'auth_off',
    };
    const input = {
      runId: due.runId,
      input: run?.input ?? null,
      output: run?.output ?? null,
      wallMs: judged.run.wallMs,
      costUsd: judged.run.usage.costUsd ?? null,
    };
    try {
      const { accepted } = await this.starter.start(
        judge,
        spec.workflow,
        { input, ...(spec.version !== undefined && { version: spec.version }) },
        `eval:${due.evaluationId}`,
        context.active(),
        { evaluates: { runId: due.runId, evaluationId: due.evaluationId } },
      );
      return { step: 'started', judgeRunId: accepted.runId };
    } catch (e) {
      const failure = failedForGood(e);
      if (failure) return { step: 'failed', reason: `the judge workflow could not start: ${failure.message}` };
      if (isSpindleError(e) || e instanceof Error) return { step: 'retry', error: e };
      throw e;
    }
  }
}
