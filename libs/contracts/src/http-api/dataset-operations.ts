import { z } from 'zod';
import {
  addDatasetItemsBodySchema,
  DATASET_ITEM_ID_PATTERN,
  datasetItemSchema,
  datasetItemsAddedSchema,
  datasetNameSchema,
  datasetSaveBodySchema,
  datasetSchema,
} from '../datasets';
import {
  EXPERIMENT_ID_PATTERN,
  experimentComparisonSchema,
  experimentItemSchema,
  experimentSchema,
  newExperimentBodySchema,
} from '../experiments';
import { ok, taggedAs, type HttpOperation } from './http-operation.types';
import * as rq from './request.schemas';

const params = { name: datasetNameSchema };
const path = '/v1/datasets/:name';

/** Datasets: versioned items (input, expected output, metadata) to run a workflow over and judge. */
export function datasetOperations(): HttpOperation[] {
  const op = taggedAs('datasets');
  return [
    op({
      operationId: 'listDatasets',
      method: 'GET',
      path: '/v1/datasets',
      summary: "The tenant's datasets",
      responses: { 200: ok('The datasets, by name.', z.object({ datasets: z.array(datasetSchema) })) },
    }),
    op({
      operationId: 'saveDataset',
      method: 'PUT',
      path,
      params,
      summary: 'Create a dataset, or change its description',
      body: datasetSaveBodySchema,
      responses: { 201: ok('Created (version 0, no items).', datasetSchema), 200: ok('Its description changed.', datasetSchema) },
    }),
    op({
      operationId: 'getDataset',
      method: 'GET',
      path,
      params,
      summary: 'A dataset, as of a version',
      description: '`items` counts the version read; a version it never had is `404 version_not_found`.',
      query: rq.datasetVersionQuerySchema,
      responses: { 200: ok('The dataset.', datasetSchema) },
    }),
    op({
      operationId: 'deleteDataset',
      method: 'DELETE',
      path,
      params,
      summary: 'Delete a dataset and every version of it',
      responses: { 204: { description: 'Deleted.' } },
    }),
    op({
      operationId: 'addDatasetItems',
      method: 'POST',
      path: `${path}/items`,
      params,
      summary: 'Add items, as the next version',
      description:
        'Items written out (`items`) or taken from runs of the tenant (`fromRuns`: the run’s input, and with `withOutput` its ' +
        'output as the expected one; the run must then have completed, else `409 conflict`). All of them become one new ' +
        'version, or none: another tenant’s or an unknown run is `404 run_not_found` naming `fromRuns[i].runId`, an item over ' +
        '256 KiB as JSON `413 payload_too_large` naming it. At most 1,000 items a request.',
      body: addDatasetItemsBodySchema,
      responses: { 201: ok('The new version and the items’ ids.', datasetItemsAddedSchema) },
    }),
    op({
      operationId: 'listDatasetItems',
      method: 'GET',
      path: `${path}/items`,
      params,
      summary: "A version's items, oldest first",
      query: rq.datasetItemsQuerySchema,
      responses: {
        200: ok(
          'A page of items.',
          z.object({ version: z.number().int(), items: z.array(datasetItemSchema), nextCursor: z.string().nullable() }),
        ),
      },
    }),
    op({
      operationId: 'removeDatasetItem',
      method: 'DELETE',
      path: `${path}/items/:itemId`,
      params: { ...params, itemId: z.string().regex(DATASET_ITEM_ID_PATTERN) },
      summary: 'Remove an item from the next version on',
      description: 'Earlier versions keep it.',
      responses: { 200: ok('The new version.', z.object({ version: z.number().int().positive() })) },
    }),
  ];
}

const experimentParams = { experimentId: z.string().regex(EXPERIMENT_ID_PATTERN) };

/** Experiments: a dataset version run through a workflow version, judged, and compared item by item. */
export function experimentOperations(): HttpOperation[] {
  const op = taggedAs('experiments');
  return [
    op({
      operationId: 'startExperiment',
      method: 'POST',
      path: '/v1/experiments',
      summary: 'Run a dataset version through a workflow version',
      description:
        'Copies the items of the dataset version (its latest by default; at most 10,000) and starts each as a run of the ' +
        'workflow version (its latest by default), `concurrency` at once, as the caller, with `parameters`. Each run that ' +
        'completed is judged by `evaluators` (an `exact_match` without `expected` against the item’s), whose results are the ' +
        'run’s scores and the item’s. With `maxCostUsd`, no item starts once the ended ones cost that much: the rest are ' +
        '`skipped` and the experiment ends `budget_exceeded`. An unknown workflow or version is `404`, a dataset version ' +
        'without items `409 conflict`.',
      body: newExperimentBodySchema,
      responses: { 201: ok('The experiment, running.', experimentSchema) },
    }),
    op({
      operationId: 'listExperiments',
      method: 'GET',
      path: '/v1/experiments',
      summary: "The tenant's experiments, newest first",
      responses: { 200: ok('The experiments, each with its summary.', z.object({ experiments: z.array(experimentSchema) })) },
    }),
    op({
      operationId: 'compareExperiments',
      method: 'GET',
      path: '/v1/experiments/compare',
      summary: 'Two or more experiments over one dataset, item by item',
      description:
        'Each item once, with each experiment’s status, output, scores, usage and wall time; with `format=csv` one row per ' +
        "item (cells that would start a formula are prefixed with `'`). Experiments over different datasets are `400`.",
      query: rq.experimentsCompareQuerySchema,
      responses: { 200: { description: 'The comparison (or its CSV).', json: experimentComparisonSchema, binary: ['text/csv'] } },
    }),
    op({
      operationId: 'getExperiment',
      method: 'GET',
      path: '/v1/experiments/:experimentId',
      params: experimentParams,
      summary: 'An experiment and its summary',
      description: 'The summary counts items by status and gives the cost, tokens, median wall time and each score’s count and mean.',
      responses: { 200: ok('The experiment.', experimentSchema) },
    }),
    op({
      operationId: 'listExperimentItems',
      method: 'GET',
      path: '/v1/experiments/:experimentId/items',
      params: experimentParams,
      summary: "An experiment's items: each run, its output, usage and scores",
      responses: { 200: ok('The items, in the dataset’s order.', z.object({ items: z.array(experimentItemSchema) })) },
    }),
    op({
      operationId: 'cancelExperiment',
      method: 'POST',
      path: '/v1/experiments/:experimentId/cancel',
      params: experimentParams,
      summary: 'Start no more of its items',
      description: 'Pending items are skipped; runs already started end as they will. `409 conflict` once it has ended.',
      responses: { 200: ok('The experiment, canceled.', experimentSchema) },
    }),
  ];
}
