import { scoreValueSchema, type Score, type ScoreValue, actorLabel } from '@spindle/contracts';

/**
 * What a person typed as a score's value: a number as a number, `true`/`false` (or 👍 `y` / 👎 `n`)
 * as a boolean, any other text as a category. `undefined` when it is nothing the API keeps.
 */
export function parseScoreInput(text: string): ScoreValue | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const lower = trimmed.toLowerCase();
  if (lower === 'true' || lower === 'y' || lower === 'yes') return true;
  if (lower === 'false' || lower === 'n' || lower === 'no') return false;
  const number = Number(trimmed);
  const value: unknown = Number.isFinite(number) ? number : trimmed;
  const parsed = scoreValueSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** A score's value as the panel shows it. */
export function scoreValueText(value: ScoreValue): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/** Who gave a score as the panel names it: the person or key, or the evaluator with its version (`exact_match (answer v3)`). */
export function scoreGiver(score: Pick<Score, 'by' | 'evaluator'>): string {
  return score.evaluator ? `${score.evaluator.name} (${score.evaluator.version})` : actorLabel(score.by);
}
