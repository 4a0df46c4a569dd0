import { z } from 'zod';
import { actorSchema } from './identity';
import { runIdSchema } from './run-id';

/**
 * Datasets: a tenant's named, versioned sets of items (an input, the output expected of it, and
 * metadata) to run a workflow over and judge. Every change (items added, an item removed) makes
 * the next version; a version's items are those added at or before it and not removed by then,
 * so an experiment over version 3 reads the same items whatever came after.
 */

export const DATASET_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const datasetNameSchema = z
  .string()
  .regex(DATASET_NAME_PATTERN, 'a dataset name: lower-case letters, digits, `_` and `-` (at most 64)');
export const DATASET_ITEM_ID_PATTERN = /^di_[0-9A-HJKMNP-TV-Z]{26}$/;

/** Items per request: a file of more is sent in parts (the CLI does). */
export const MAX_ITEMS_PER_REQUEST = 1_000;

/** `PUT /v1/datasets/{name}`. */
export const datasetSaveBodySchema = z.strictObject({ description: z.string().max(2_000).optional() });

export const newDatasetItemSchema = z.strictObject({
  input: z.unknown().describe('What a run of the dataset’s workflow is started with.'),
  expected: z.unknown().optional().describe('The output expected of it (what `exact_match` compares with in an experiment).'),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type NewDatasetItem = z.infer<typeof newDatasetItemSchema>;

/** An item taken from a run of the tenant's: its input, and its output as the expected one when asked. */
export const itemFromRunSchema = z.strictObject({
  runId: runIdSchema,
  /** The run's output becomes the item's `expected` (the run must have completed). */
  withOutput: z.boolean().default(false),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** `POST /v1/datasets/{name}/items`: items written out, or taken from runs; all of them in one new version, or none. */
export const addDatasetItemsBodySchema = z
  .strictObject({
    items: z.array(newDatasetItemSchema).max(MAX_ITEMS_PER_REQUEST).optional(),
    fromRuns: z.array(itemFromRunSchema).max(MAX_ITEMS_PER_REQUEST).optional(),
  })
  .refine((b) => (b.items?.length ?? 0) + (b.fromRuns?.length ?? 0) > 0, { message: 'give `items` or `fromRuns`', path: ['items'] })
  .refine((b) => (b.items?.length ?? 0) + (b.fromRuns?.length ?? 0) <= MAX_ITEMS_PER_REQUEST, {
    message: `at most ${MAX_ITEMS_PER_REQUEST} items a request`,
    path: ['items'],
  });
export type AddDatasetItemsBody = z.infer<typeof addDatasetItemsBodySchema>;

export const datasetSchema = z.object({
  name: z.string(),
  description: z.string().nullable(),
  version: z.number().int().nonnegative().describe('The latest version: 0 until items are added.'),
  items: z.number().int().nonnegative().describe('Items in the version read (the latest unless `?version=`).'),
  createdAt: z.string(),
  createdBy: actorSchema,
  updatedAt: z.string(),
});
export type Dataset = z.infer<typeof datasetSchema>;

export const datasetItemSchema = z.object({
  itemId: z.string(),
  input: z.unknown(),
  expected: z.unknown().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  /** The run it was taken from, if any. */
  sourceRunId: z.string().nullable(),
  addedIn: z.number().int().positive(),
});
export type DatasetItem = z.infer<typeof datasetItemSchema>;

export const datasetItemsAddedSchema = z.object({ version: z.number().int().positive(), itemIds: z.array(z.string()) });
export type DatasetItemsAdded = z.infer<typeof datasetItemsAddedSchema>;

/**
 * Whether an item is in a version: added at or before it, and not removed by then. The one rule the
 * reads and the experiments share.
 */
export function inDatasetVersion(item: { addedIn: number; removedIn: number | null }, version: number): boolean {
  return item.addedIn <= version && (item.removedIn === null || item.removedIn > version);
}
