import { createHash } from 'node:crypto';
import { query, type Bus } from '@spindle/bus';
import { newScoreBodySchema, parseBody, type Principal, type ScoreQueryResults } from '@spindle/contracts';
import { ulid } from 'ulid';
import type { RunReads } from './run-reads.service';

/**
 * Scores of runs, kept by the trace recorder beside the trace. The run is checked (it exists, it
 * is not past retention) and its last seq awaited there first, so a score naming a span the
 * run already has is never refused as unknown.
 */
export class RunScores {
  constructor(
    private readonly bus: Bus,
    private readonly reads: RunReads,
    private readonly timeoutMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async record(caller: Principal, runId: string, body: unknown, idempotencyKey?: string): Promise<ScoreQueryResults['recordScore']> {
    const score = parseBody(newScoreBodySchema, body);
    const waitForSeq = await this.reads.requireRun(runId);
    return this.ask('recordScore', {
      tenant: caller.tenant,
      runId,
      waitForSeq,
      score: {
        scoreId: idempotencyKey === undefined ? `sc_${ulid()}` : keyedScoreId(caller.tenant, runId, idempotencyKey),
        spanId: score.spanId ?? null,
        name: score.name,
        value: score.value,
        comment: score.comment ?? null,
        by: caller.actor,
        evaluator: null,
        createdAt: this.now().toISOString(),
      },
    });
  }

  async list(caller: Principal, runId: string): Promise<ScoreQueryResults['listScores']> {
    const waitForSeq = await this.reads.requireRun(runId);
    return this.ask('listScores', { tenant: caller.tenant, runId, waitForSeq });
  }

  private ask<Op extends keyof ScoreQueryResults>(op: Op, payload: unknown): Promise<ScoreQueryResults[Op]> {
    return query<ScoreQueryResults[Op]>(this.bus, 'trace', op, payload, this.timeoutMs);
  }
}

/** A retried request under one Idempotency-Key names the same score, whichever gateway takes it. */
export const keyedScoreId = (tenant: string, runId: string, key: string): string =>
  `sc_${createHash('sha256').update(`${tenant}\n${runId}\n${key}`).digest('hex').slice(0, 32)}`;
