import { EMPTY_RUN_CLOCK, foldRunClock, runClockDurations, type RunEvent } from '@spindle/contracts';
import { ARBITRARY_RUN_ID, referenceFold, runLogArbitrary, withRunId, type ReferenceTrace } from '@spindle/testing';
import fc from 'fast-check';
import { projectEvents } from './project-events';
import type { RowPatches } from './row-patches';

const NUM_RUNS = 200;

/** The rows one batch's patches describe, in the reference fold's shape (absent is null). */
function patchesView(patches: RowPatches, runId: string): ReferenceTrace {
  const run = patches.runs.get(runId);
  if (!run?.creation || !run.status) throw new Error(`no whole run ${runId} in the patches`);
  const clock = run.clockEvents.reduce(foldRunClock, EMPTY_RUN_CLOCK);
  const ended = clock.endMs === null ? undefined : runClockDurations(clock, clock.endMs);
  return {
    run: {
      workflow: { name: run.creation.workflow, version: run.creation.workflowVersion },
      queuedAt: run.creation.queuedAt,
      status: run.status,
      startedAt: run.startedAt ?? null,
      endedAt: run.endedAt ?? null,
      wallMs: ended?.wallMs ?? null,
      workingMs: ended?.workingMs ?? null,
      error: run.error ?? null,
      usage: { ...run.usage, costUsd: run.usage.costUsd ?? 0 },
      lastSeq: run.lastSeq,
      tenant: run.creation.tenant,
      startedBy: run.creation.startedBy,
      canceledBy: run.canceledBy ?? null,
    },
    spans: [...patches.spans.values()]
      .filter((s) => s.runId === runId)
      .map((s) => ({
        spanId: s.spanId,
        kind: s.kind,
        status: s.status,
        parentSpanId: s.parentSpanId ?? null,
        nodeId: s.nodeId ?? null,
        path: s.path,
        nodeType: s.nodeType ?? null,
        model: s.model ?? null,
        iteration: s.iteration ?? null,
        branchId: s.branchId ?? null,
        startSeq: s.startSeq ?? null,
        endSeq: s.endSeq ?? null,
        startedAt: s.startedAt ?? null,
        endedAt: s.endedAt ?? null,
        durationMs: s.durationMs ?? null,
        error: s.error ?? null,
        usage: s.usage ?? null,
      }))
      .sort((a, b) => (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0)),
  };
}

/** Cuts a log into consecutive, non-empty batches at the given (folded into range) positions. */
function splitAt(log: readonly RunEvent[], cuts: readonly number[]): RunEvent[][] {
  const at = [...new Set(cuts.map((c) => 1 + (c % Math.max(1, log.length - 1))))].filter((c) => c < log.length).sort((a, b) => a - b);
  const bounds = [0, ...at, log.length];
  return bounds.slice(1).map((end, i) => log.slice(bounds[i], end));
}

describe('projectEvents (property)', () => {
  it('folds any valid run log into exactly what the reference fold reads off the log', () => {
    fc.assert(
      fc.property(runLogArbitrary(), (log) => {
        expect(patchesView(projectEvents(log), ARBITRARY_RUN_ID)).toEqual(referenceFold(log, { orphans: 'running' }));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('gives the same patches whatever order a batch holds its events in, and runs mixed in one batch fold independently', () => {
    fc.assert(
      fc.property(runLogArbitrary({ maxSteps: 20 }), runLogArbitrary({ maxSteps: 20 }), fc.infiniteStream(fc.nat()), (a, b, order) => {
        const logA = withRunId(a, 'run-a');
        const logB = withRunId(b, 'run-b');
        const mixed = [...logA, ...logB]
          .map((event) => ({ event, key: order.next().value as number }))
          .sort((x, y) => x.key - y.key)
          .map((x) => x.event);
        const together = projectEvents(mixed);
        expect(patchesView(together, 'run-a')).toEqual(patchesView(projectEvents(logA), 'run-a'));
        expect(patchesView(together, 'run-b')).toEqual(patchesView(projectEvents(logB), 'run-b'));
        expect([...together.runs.keys()].sort()).toEqual(['run-a', 'run-b']);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  // The merge of consecutive batches' patches into stored rows is SQL (trace-rows.writer
  // `upsertPatches`); it is checked end to end in trace-projection.property.int.spec.ts. Here: the
  // parts of the patch contract the store relies on, per batch.
  it('splits a log into batches whose usage deltas add up to the whole log and whose lastSeq is each batch end', () => {
    fc.assert(
      fc.property(runLogArbitrary(), fc.array(fc.nat(), { maxLength: 8 }), (log, cuts) => {
        const batches = splitAt(log, cuts);
        expect(batches.flat()).toEqual(log);
        const whole = projectEvents(log).runs.get(ARBITRARY_RUN_ID);
        const sum: Record<string, number> = { inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0 };
        for (const batch of batches) {
          const patch = projectEvents(batch).runs.get(ARBITRARY_RUN_ID);
          expect(patch?.lastSeq).toBe(batch[batch.length - 1].seq);
          // Only the batch holding run.queued carries the run's identity.
          expect(patch?.creation !== undefined).toBe(batch[0].seq === 1);
          sum.inputTokens += patch?.usage.inputTokens ?? NaN;
          sum.outputTokens += patch?.usage.outputTokens ?? NaN;
          sum.totalTokens += patch?.usage.totalTokens ?? NaN;
          sum.costUsd += patch?.usage.costUsd ?? NaN;
          for (const key of ['cachedInputTokens', 'cacheWriteTokens', 'reasoningTokens', 'unpricedCalls'] as const) {
            const n = patch?.usage[key];
            if (n !== undefined) sum[key] = (sum[key] ?? 0) + n;
          }
        }
        expect(sum).toEqual(whole?.usage);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
