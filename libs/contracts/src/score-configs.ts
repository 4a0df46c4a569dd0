import { z } from 'zod';
import type { FieldIssue } from './errors';
import { tenantIdSchema } from './identity';
import { scoreCategorySchema, scoreDataTypeOf, scoreDataTypeSchema, scoreNameSchema, type ScoreValue } from './scores';

/**
 * Score configs: what a tenant's score of a name must be (its kind, a number's range, a
 * category's labels), and whether a score may have a name no config declares (`strict`). Every
 * score passes the one check (`scoreConfigIssue`) where it is stored, whoever gives it: a person,
 * an API key or an evaluator.
 */

const bound = z.number().finite().min(-1e12).max(1e12);

/** `PUT /v1/score-configs/{name}`. */
export const scoreConfigBodySchema = z
  .strictObject({
    dataType: scoreDataTypeSchema.describe('What its value is: a number, `true`/`false`, or one of `categories`.'),
    min: bound.optional().describe('numeric: the least value it may have.'),
    max: bound.optional().describe('numeric: the greatest value it may have.'),
    categories: z.array(scoreCategorySchema).min(1).max(100).optional().describe('categorical: the labels it may have (required).'),
    description: z.string().max(500).optional(),
  })
  .superRefine((c, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (c.dataType !== 'numeric' && (c.min !== undefined || c.max !== undefined))
      issue(c.min !== undefined ? 'min' : 'max', 'only a numeric score has a range');
    if (c.min !== undefined && c.max !== undefined && c.min > c.max) issue('max', 'less than min');
    if (c.dataType === 'categorical' && c.categories === undefined) issue('categories', 'a categorical score names its categories');
    if (c.dataType !== 'categorical' && c.categories !== undefined) issue('categories', 'only a categorical score has categories');
    if (c.categories && new Set(c.categories).size !== c.categories.length) issue('categories', 'a category is named twice');
  });
export type ScoreConfigBody = z.infer<typeof scoreConfigBodySchema>;

export const scoreConfigSchema = z.object({
  name: scoreNameSchema,
  dataType: scoreDataTypeSchema,
  min: z.number().nullable(),
  max: z.number().nullable(),
  categories: z.array(z.string()).nullable(),
  description: z.string().nullable(),
  updatedAt: z.string(),
});
export type ScoreConfig = z.infer<typeof scoreConfigSchema>;

/** `PUT /v1/score-settings`. */
export const scoreSettingsBodySchema = z.strictObject({
  strict: z.boolean().describe('Refuse a score whose name no score config declares (default false).'),
});

export const scoreConfigListSchema = z.object({ strict: z.boolean(), configs: z.array(scoreConfigSchema) });
export type ScoreConfigList = z.infer<typeof scoreConfigListSchema>;

/** The trace recorder's score-config operations (it keeps the scores, and checks each against them). */
export const scoreConfigQuerySchemas = {
  putScoreConfig: z.object({ tenant: tenantIdSchema, name: scoreNameSchema, config: scoreConfigBodySchema }),
  deleteScoreConfig: z.object({ tenant: tenantIdSchema, name: scoreNameSchema }),
  listScoreConfigs: z.object({ tenant: tenantIdSchema }),
  setScoreSettings: z.object({ tenant: tenantIdSchema, strict: z.boolean() }),
} as const;
export interface ScoreConfigQueryResults {
  putScoreConfig: { config: ScoreConfig; created: boolean };
  deleteScoreConfig: { deleted: boolean };
  listScoreConfigs: ScoreConfigList;
  setScoreSettings: { strict: boolean };
}

/**
 * Why a score may not be stored as it is, against its name's config (undefined: it may): a kind
 * other than the config's, a number outside its range, a label it does not list, or, with
 * `strict`, a name no config declares.
 */
export function scoreConfigIssue(
  config: Pick<ScoreConfig, 'dataType' | 'min' | 'max' | 'categories'> | undefined,
  strict: boolean,
  name: string,
  value: ScoreValue,
): FieldIssue | undefined {
  if (!config)
    return strict ? { field: 'name', message: `no score config declares "${name}", and this tenant's scores are strict` } : undefined;
  const kind = scoreDataTypeOf(value);
  if (kind !== config.dataType) return { field: 'value', message: `"${name}" is ${config.dataType}, not ${kind}` };
  if (typeof value === 'number') {
    if (config.min !== null && value < config.min) return { field: 'value', message: `"${name}" is at least ${config.min}` };
    if (config.max !== null && value > config.max) return { field: 'value', message: `"${name}" is at most ${config.max}` };
  }
  if (typeof value === 'string' && config.categories && !config.categories.includes(value))
    return { field: 'value', message: `"${name}" is one of ${config.categories.map((c) => JSON.stringify(c)).join(', ')}` };
  return undefined;
}
