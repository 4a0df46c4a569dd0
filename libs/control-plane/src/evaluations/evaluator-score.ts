import { createHash } from 'node:crypto';
import { query, type Bus } from '@spindle/bus';
import type { ScoreValue } from '@spindle/contracts';

/** Who gives an evaluator's score: the system, on the evaluator's behalf (the score names the evaluator). */
const EVALUATOR_ACTOR = { kind: 'system' as const, id: 'evaluator', name: 'evaluator' };

/**
 * Stores an evaluator's judgement as a score of the run, through the trace recorder, under an id
 * derived from `key` (what was judged), so a retry after a lost reply stores it once. Returns the id.
 */
export async function recordEvaluatorScore(
  bus: Bus,
  target: { tenant: string; runId: string; key: string; prefix: 'ev' | 'ex' },
  judgement: { name: string; value: ScoreValue; comment: string; evaluator: { name: string; version: string } },
  timeoutMs: number,
): Promise<string> {
  const scoreId = `sc_${target.prefix}_${createHash('sha256').update(target.key).digest('hex').slice(0, 32)}`;
  await query(
    bus,
    'trace',
    'recordScore',
    {
      tenant: target.tenant,
      runId: target.runId,
      score: {
        scoreId,
        spanId: null,
        name: judgement.name,
        value: judgement.value,
        comment: judgement.comment,
        by: EVALUATOR_ACTOR,
        evaluator: judgement.evaluator,
        createdAt: new Date().toISOString(),
      },
    },
    timeoutMs,
  );
  return scoreId;
}
