import { z } from 'zod';

/**
 * How the runs list is searched and sorted: the HTTP query (`GET /v1/runs`) and the trace
 * recorder's `listRuns` share these, so what the gateway lets through is what the index answers.
 */

/**
 * started: when queued; duration: a run still going sorts as the shortest; tokens: total; cost: USD;
 * score: the mean of the numeric values of the score the `score` filter names (a run without one sorts lowest).
 */
export const RUN_SORT_KEYS = ['started', 'duration', 'tokens', 'cost', 'score'] as const;
export const runSortSchema = z.enum(RUN_SORT_KEYS).describe('The column the list is ordered by (default `started`).');
export type RunSort = z.infer<typeof runSortSchema>;

export const sortOrderSchema = z.enum(['desc', 'asc']).describe('Default `desc`: newest, longest, largest first.');
export type SortOrder = z.infer<typeof sortOrderSchema>;

/** Printable text only: a control character (NUL above all) never reaches the database. */
const PRINTABLE = /^\P{Cc}*$/u;

export const runSearchTextSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(PRINTABLE, 'no control characters')
  .describe(
    'Words that must all appear (as word prefixes) in the run’s input or output, or the start of a run id. ' +
      'Punctuation separates words; at most 8 words count.',
  );

export const errorCodeFilterSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'not an error code')
  .describe('Runs that ended with this error code (`canceled` for canceled runs).');

/** `key=value`: a run parameter's exact value (a number or `true`/`false` matches that JSON value or its text). */
export const PARAMETER_FILTER_PATTERN = /^([A-Za-z_][A-Za-z0-9_.-]{0,63})=(\P{Cc}{0,200})$/u;
export const parameterFilterSchema = z
  .string()
  .regex(PARAMETER_FILTER_PATTERN, 'not key=value (a parameter name, `=`, then its value)')
  .describe('`key=value`: runs started with this parameter value.');

/**
 * `name`, or `name` then `=`, `>=`, `<=`, `>` or `<` and a value: runs with a score of that name
 * (and a value that compares so). A number compares numerically (a boolean as 1 or 0), `true` and
 * `false` match booleans, any other text after `=` a category.
 */
export const SCORE_FILTER_PATTERN = /^([a-z][a-z0-9_.-]{0,63})(?:(>=|<=|=|>|<)(\P{Cc}{1,100}))?$/u;
export const scoreFilterSchema = z
  .string()
  .regex(SCORE_FILTER_PATTERN, 'not a score filter (a score name, optionally `=`, `>=`, `<=`, `>` or `<` and a value)')
  .refine((text) => parseScoreFilter(text) !== undefined, 'a score is compared with `>=`, `<=`, `>` or `<` only to a number')
  .describe('`name` or e.g. `helpfulness>=0.8`, `correct=true`, `tone=friendly`: runs with such a score.');

export type ScoreFilter =
  | { name: string; op: 'exists' }
  | { name: string; op: '=' | '>=' | '<=' | '>' | '<'; number: number }
  | { name: string; op: '='; boolean: boolean }
  | { name: string; op: '='; category: string };

/** A score filter as its parts; undefined when it compares a non-number with an order. */
export function parseScoreFilter(text: string): ScoreFilter | undefined {
  const match = SCORE_FILTER_PATTERN.exec(text);
  if (!match) return undefined;
  const [, name, op, value] = match as unknown as [string, string, ScoreFilter['op'] | undefined, string | undefined];
  if (op === undefined || value === undefined) return { name, op: 'exists' };
  const number = value.trim() === '' ? NaN : Number(value);
  if (Number.isFinite(number)) return { name, op: op as '=', number };
  if (op !== '=') return undefined;
  if (value === 'true' || value === 'false') return { name, op, boolean: value === 'true' };
  return { name, op, category: value };
}

const instantSchema = z.iso.datetime({ offset: true });

/**
 * Workflows whose name starts with `_` are the system's own records (`_thread_state`: a thread's
 * state change); no catalog name can start with it. Lists, searches and the overview leave their
 * runs out unless asked to include them.
 */
export const INTERNAL_WORKFLOW_PREFIX = '_';
export const isInternalWorkflow = (name: string): boolean => name.startsWith(INTERNAL_WORKFLOW_PREFIX);

export const internalRunsFilterSchema = z
  .enum(['exclude', 'include'])
  .describe('`include`: also the internal runs (workflows named `_…`, such as `_thread_state`, a thread state change). Default `exclude`.');
export type InternalRunsFilter = z.infer<typeof internalRunsFilterSchema>;

/** The search fields both shapes share, with the check no single field can make. */
export const runSearchFields = {
  q: runSearchTextSchema.optional(),
  from: instantSchema.describe('Runs queued at or after this instant (ISO 8601 with offset).').optional(),
  to: instantSchema.describe('Runs queued before this instant.').optional(),
  errorCode: errorCodeFilterSchema.optional(),
  parameter: parameterFilterSchema.optional(),
  internal: internalRunsFilterSchema.optional(),
  score: scoreFilterSchema.optional(),
} as const;

/** `from` must not come after `to`: an empty window is a mistake, not an empty page. */
export function timeWindowIssue(query: { from?: string; to?: string }): string | undefined {
  if (query.from === undefined || query.to === undefined) return undefined;
  return Date.parse(query.from) > Date.parse(query.to) ? '`from` is after `to`' : undefined;
}

/** `sort=score` sorts by the score the `score` filter names: without one there is nothing to sort by. */
export function scoreSortIssue(query: { sort?: string; score?: string }): string | undefined {
  return query.sort === 'score' && query.score === undefined ? '`sort=score` needs a `score` filter naming the score' : undefined;
}

/** The words of a search text the full-text index is asked for: letters and digits, at most 8 of at most 64 characters. */
export function searchWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 8).map((w) => w.slice(0, 64));
}

/** A parameter filter's key and value. */
export function parseParameterFilter(text: string): { key: string; value: string } {
  const match = PARAMETER_FILTER_PATTERN.exec(text);
  if (!match) throw new Error(`not a parameter filter: ${text}`);
  return { key: match[1]!, value: match[2]! };
}
