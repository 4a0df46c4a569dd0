import { z } from 'zod';
import { actorSchema } from './identity';
import { datasetNameSchema } from './datasets';
import { builtinEvaluatorsSchema } from './evaluators';
import { usageSchema } from './run-events';

/**
 * Experiments: a dataset version run through a workflow version (with parameters), every item a
 * normal run, judged by the experiment's evaluators against the item's expected output, with at
 * most `concurrency` runs at once and a cost budget. Two experiments over one dataset compare item
 * by item.
 */

export const EXPERIMENT_ID_PATTERN = /^exp_[0-9A-HJKMNP-TV-Z]{26}$/;
export const MAX_EXPERIMENT_CONCURRENCY = 20;

/** `POST /v1/experiments`. */
export const newExperimentBodySchema = z.strictObject({
  name: z.string().min(1).max(200).optional().describe('What the experiment tries (a label for the comparison).'),
  dataset: datasetNameSchema,
  datasetVersion: z.number().int().positive().optional().describe('Default: the dataset’s latest version when the experiment starts.'),
  workflow: z.string().min(1).max(63),
  version: z.number().int().positive().optional().describe('Default: the workflow’s latest version when the experiment starts.'),
  parameters: z.record(z.string(), z.unknown()).optional().describe('The runs’ parameters (checked against the workflow’s schema).'),
  evaluators: builtinEvaluatorsSchema
    .optional()
    .describe(
      'Judges of each item’s run once it ended; an `exact_match` without `expected` compares with the item’s `expected`. ' +
        'Their scores are the runs’ (given on the evaluator’s behalf).',
    ),
  concurrency: z.number().int().min(1).max(MAX_EXPERIMENT_CONCURRENCY).default(4).describe('Runs at once (1 to 20, default 4).'),
  maxCostUsd: z
    .number()
    .positive()
    .optional()
    .describe('No item is started once the finished ones cost this much; the experiment ends `budget_exceeded`.'),
});
export type NewExperimentBody = z.infer<typeof newExperimentBodySchema>;

export const EXPERIMENT_STATUSES = ['running', 'completed', 'budget_exceeded', 'canceled'] as const;
export const experimentStatusSchema = z.enum(EXPERIMENT_STATUSES);
export type ExperimentStatus = z.infer<typeof experimentStatusSchema>;

export const EXPERIMENT_ITEM_STATUSES = ['pending', 'running', 'completed', 'failed', 'canceled', 'skipped'] as const;
export const experimentItemStatusSchema = z.enum(EXPERIMENT_ITEM_STATUSES);
export type ExperimentItemStatus = z.infer<typeof experimentItemStatusSchema>;

const scoreValue = z.union([z.number(), z.boolean(), z.string()]);

/** One score name across an experiment's items: how many gave it, the mean of its numbers (a boolean as 1 or 0). */
export const scoreSummarySchema = z.object({ count: z.number().int().nonnegative(), mean: z.number().nullable() });

export const experimentSummarySchema = z.object({
  items: z.number().int().nonnegative(),
  byStatus: z.record(z.string(), z.number().int().nonnegative()),
  costUsd: z.number().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  wallMsP50: z.number().nullable(),
  scores: z.record(z.string(), scoreSummarySchema),
});
export type ExperimentSummary = z.infer<typeof experimentSummarySchema>;

export const experimentSchema = z.object({
  experimentId: z.string(),
  name: z.string().nullable(),
  dataset: z.object({ name: z.string(), version: z.number().int() }),
  workflow: z.object({ name: z.string(), version: z.number().int() }),
  parameters: z.record(z.string(), z.unknown()).nullable(),
  concurrency: z.number().int(),
  maxCostUsd: z.number().nullable(),
  status: experimentStatusSchema,
  createdAt: z.string(),
  createdBy: actorSchema,
  endedAt: z.string().nullable(),
  summary: experimentSummarySchema,
});
export type Experiment = z.infer<typeof experimentSchema>;

export const experimentItemSchema = z.object({
  itemId: z.string(),
  position: z.number().int(),
  input: z.unknown(),
  expected: z.unknown().nullable(),
  runId: z.string().nullable(),
  status: experimentItemStatusSchema,
  output: z.unknown().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  usage: usageSchema.nullable(),
  wallMs: z.number().nullable(),
  scores: z.record(z.string(), scoreValue),
  /** Evaluators that could not judge this item, and why. */
  evaluatorErrors: z.record(z.string(), z.string()),
});
export type ExperimentItem = z.infer<typeof experimentItemSchema>;

/** `GET /v1/experiments/compare?ids=`: two or more experiments over one dataset, item by item. */
export const experimentComparisonSchema = z.object({
  experiments: z.array(experimentSchema),
  items: z.array(
    z.object({
      itemId: z.string(),
      input: z.unknown(),
      expected: z.unknown().nullable(),
      /** By experiment id; absent where that experiment's dataset version lacks the item. */
      results: z.record(z.string(), experimentItemSchema.omit({ itemId: true, position: true, input: true, expected: true })),
    }),
  ),
});
export type ExperimentComparison = z.infer<typeof experimentComparisonSchema>;
