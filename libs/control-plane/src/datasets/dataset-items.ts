import { canonicalJson, DEFAULT_TENANT, SpindleError, type AddDatasetItemsBody, type FieldIssue } from '@spindle/contracts';
import { firstEventOf, lastEventOf, type Bus } from '@spindle/bus';
import type { StoredItemDraft } from './dataset.repository';

/** An item's input, expected output and metadata together, as canonical JSON, at most this many bytes. */
export const DEFAULT_MAX_DATASET_ITEM_BYTES = 256 * 1024;

/** What an item taken from a run needs of it: whose it is, what it was started with, how it ended. */
export interface RunForItem {
  tenant: string;
  input: unknown;
  status: 'completed' | 'failed' | 'canceled' | 'running';
  output?: unknown;
}
export type RunForItemReader = (runId: string) => Promise<RunForItem | undefined>;

/** Reads a run's start and end from its log: the log is the one place a run's input and output are whole. */
export function runForItemFromLog(bus: Bus): RunForItemReader {
  return async (runId) => {
    const queued = await firstEventOf(bus, runId);
    if (!queued) return undefined;
    const last = (await lastEventOf(bus, runId))?.event;
    const status =
      last?.type === 'run.completed'
        ? 'completed'
        : last?.type === 'run.failed'
          ? 'failed'
          : last?.type === 'run.canceled'
            ? 'canceled'
            : 'running';
    return {
      tenant: queued.data.tenant ?? DEFAULT_TENANT,
      input: queued.data.input,
      status,
      ...(last?.type === 'run.completed' ? { output: last.data.output } : {}),
    };
  };
}

/**
 * The request's items as they will be stored: written ones as given, run ones read from the runs
 * (of the caller's tenant; with their output as the expected one only if they completed). Every
 * item is checked before any is stored, so a request adds all its items or none.
 */
export async function draftItems(
  tenant: string,
  body: AddDatasetItemsBody,
  readRun: RunForItemReader,
  maxItemBytes = DEFAULT_MAX_DATASET_ITEM_BYTES,
): Promise<StoredItemDraft[]> {
  const drafts: Array<{ field: string; item: StoredItemDraft }> = (body.items ?? []).map((item, i) => ({ field: `items[${i}]`, item }));
  for (const [i, from] of (body.fromRuns ?? []).entries()) {
    const field = `fromRuns[${i}]`;
    const run = await readRun(from.runId);
    // Another tenant's run is not found: an id never tells a caller that someone else has it.
    if (!run || run.tenant !== tenant) {
      throw new SpindleError('run_not_found', `${field}.runId: no run with id "${from.runId}"`, {
        issues: [{ field: `${field}.runId`, message: 'no such run' }],
      });
    }
    if (from.withOutput && run.status !== 'completed') {
      throw new SpindleError('conflict', `${field}: run ${from.runId} has not completed (${run.status}): it has no output to expect`, {
        issues: [{ field: `${field}.withOutput`, message: `the run is ${run.status}` }],
      });
    }
    drafts.push({
      field,
      item: {
        input: run.input,
        ...(from.withOutput ? { expected: run.output } : {}),
        ...(from.metadata ? { metadata: from.metadata } : {}),
        sourceRunId: from.runId,
      },
    });
  }
  const tooLarge: FieldIssue[] = drafts
    .filter(({ item }) => itemBytes(item) > maxItemBytes)
    .map(({ field }) => ({ field, message: `larger than ${maxItemBytes} bytes as JSON` }));
  if (tooLarge.length > 0) {
    throw new SpindleError('payload_too_large', `${tooLarge[0]!.field}: an item is at most ${maxItemBytes} bytes as JSON`, {
      issues: tooLarge,
    });
  }
  return drafts.map((d) => d.item);
}

function itemBytes(item: StoredItemDraft): number {
  return new TextEncoder().encode(
    canonicalJson({ input: item.input ?? null, expected: item.expected ?? null, metadata: item.metadata ?? null }),
  ).length;
}
