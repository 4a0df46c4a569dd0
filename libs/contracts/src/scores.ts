import { z } from 'zod';
import { actorSchema, tenantIdSchema } from './identity';
import { runIdSchema } from './run-id';

/**
 * A score: what a person, an API client or an evaluator judged of a run (or of one of its spans).
 * Scores are not events of the run: a run's log ends with its one terminal event, and a score
 * usually comes after it. They are rows of their own beside the trace (`trace.scores`), written
 * once and never changed, so the log and every projection of it stay as they were.
 */

/** Lower-case words joined by `_`, `.` or `-`: the same name in the API, the list filter and metrics labels. */
export const SCORE_NAME_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;
export const scoreNameSchema = z
  .string()
  .regex(SCORE_NAME_PATTERN, 'a score name is lower-case letters, digits, `_`, `.` or `-`, starting with a letter (at most 64)')
  .describe('What is scored, e.g. `helpfulness` or `exact_match`.');

const PRINTABLE_LINE = /^\P{Cc}*$/u;
export const scoreCategorySchema = z.string().min(1).max(100).regex(PRINTABLE_LINE, 'no control characters');

/**
 * A number (finite), a boolean or a category (a short label). The kind is told by the value's JSON
 * type, so `1` and `true` are different scores and a category never reads as a number.
 */
export const scoreValueSchema = z.union([z.number().finite().min(-1e12).max(1e12), z.boolean(), scoreCategorySchema]);
export type ScoreValue = z.infer<typeof scoreValueSchema>;

export const SCORE_DATA_TYPES = ['numeric', 'boolean', 'categorical'] as const;
export const scoreDataTypeSchema = z.enum(SCORE_DATA_TYPES);
export type ScoreDataType = z.infer<typeof scoreDataTypeSchema>;

export function scoreDataTypeOf(value: ScoreValue): ScoreDataType {
  if (typeof value === 'number') return 'numeric';
  if (typeof value === 'boolean') return 'boolean';
  return 'categorical';
}

/** An evaluator that gave a score: its name and the version that judged (a workflow version or a function's). */
export const scoreEvaluatorSchema = z.object({ name: z.string().min(1).max(100), version: z.string().min(1).max(100) });

/** `POST /v1/runs/{id}/scores`. */
export const newScoreBodySchema = z.strictObject({
  name: scoreNameSchema,
  value: scoreValueSchema.describe('A number, `true`/`false`, or a category label (at most 100 characters).'),
  comment: z.string().max(2000).optional().describe('Why: kept with the score.'),
  spanId: z.string().min(1).max(200).optional().describe('A span of the run’s trace (a node or a model call) the score is about.'),
});
export type NewScoreBody = z.infer<typeof newScoreBodySchema>;

export const scoreSchema = z.object({
  scoreId: z.string(),
  runId: z.string(),
  spanId: z.string().nullable(),
  name: z.string(),
  value: scoreValueSchema,
  dataType: scoreDataTypeSchema,
  comment: z.string().nullable(),
  /** Who gave it: a person (signed in), an API key, or the system on an evaluator's behalf. */
  by: actorSchema,
  evaluator: scoreEvaluatorSchema.nullable(),
  createdAt: z.string(),
});
export type Score = z.infer<typeof scoreSchema>;

/** The trace recorder's score operations, served over NATS request/reply beside its reads. */
export const scoreQuerySchemas = {
  /**
   * Stores a score of a run of `tenant`, once: a repeat of the same `scoreId` answers the stored
   * score (a lost reply retried), a different body under it is `409 idempotency_key_reused`.
   */
  recordScore: z.object({
    tenant: tenantIdSchema,
    runId: runIdSchema,
    /** The run's last seq the caller saw: its spans are there before the score names one. */
    waitForSeq: z.number().int().nonnegative().optional(),
    score: scoreSchema.omit({ runId: true, dataType: true }),
  }),
  listScores: z.object({ tenant: tenantIdSchema, runId: runIdSchema, waitForSeq: z.number().int().nonnegative().optional() }),
} as const;
export interface ScoreQueryResults {
  recordScore: { score: Score; created: boolean };
  listScores: { scores: Score[] };
}

/** Whether a stored score says what a repeated request says (an idempotent retry), who gave it aside. */
export function sameScoreBody(stored: Pick<Score, 'name' | 'value' | 'comment' | 'spanId'>, body: NewScoreBody): boolean {
  return (
    stored.name === body.name &&
    stored.value === body.value &&
    stored.comment === (body.comment ?? null) &&
    stored.spanId === (body.spanId ?? null)
  );
}

/** What filters and sorts compare: a number as itself, a boolean as 1 or 0, a category not at all. */
export function scoreNumberOf(value: ScoreValue): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return null;
}
