import { z } from 'zod';
import { actorLabel } from './actor-label';
import { actorSchema } from './identity';
import { workflowRefSchema } from './run-events';
import { runStatusSchema } from './run-status';
import type { RunSummary } from './trace-queries';

/**
 * A run's fork tree (`GET /v1/runs/{id}/lineage`): the run its ancestry started from, every fork
 * of it, the forks of those, and so on, each edge naming the checkpoint the fork started at.
 */

/** At most this many runs are in one tree (the rest is left out, and `truncated` says so). */
export const MAX_LINEAGE_RUNS = 500;
/** At most this many forks deep, up from the asked run to its root and down from the root. */
export const MAX_LINEAGE_DEPTH = 64;

export const forkPointSchema = z.object({
  runId: z.string().describe('The run it was forked from.'),
  seq: z.number().int().describe("The seq of that run's checkpoint the fork started at."),
  checkpointId: z.string().optional(),
  forkedBy: actorSchema.optional().describe('Who forked it (absent in logs written before identity).'),
});
export type ForkPoint = z.infer<typeof forkPointSchema>;

export const lineageRunSchema = z.object({
  runId: z.string(),
  /** 0 for the root; a fork is one deeper than the run it was forked from. */
  depth: z.number().int().nonnegative().describe('0 for the root; a fork is one deeper than the run it was forked from.'),
  /** The edge to its parent in the tree; null for a run that is no fork. The root's may name a run since erased. */
  forkedFrom: forkPointSchema.nullable().describe('The edge to its parent: null for a run that is no fork.'),
  workflow: workflowRefSchema,
  status: runStatusSchema,
  queuedAt: z.string(),
  startedBy: actorSchema.nullable(),
});
export type LineageRun = z.infer<typeof lineageRunSchema>;

export const runLineageSchema = z.object({
  runId: z.string().describe('The run asked about.'),
  rootRunId: z.string().describe('The oldest ancestor still recorded: the first of `runs`.'),
  runs: z.array(lineageRunSchema).describe('Depth first from the root, each fork after the run it was forked from, older forks first.'),
  truncated: z
    .boolean()
    .describe(`The tree had more than ${MAX_LINEAGE_RUNS} runs or was deeper than ${MAX_LINEAGE_DEPTH}: the deepest were left out.`),
});
export type RunLineage = z.infer<typeof runLineageSchema>;

/**
 * The tree of the runs `runs` (the asked run, its ancestors and their descendants, in any order)
 * as the lineage answers it: from the oldest ancestor among them, depth first, the forks of a run
 * ordered by when they were queued. Runs not connected to that root are left out.
 */
export function runLineage(runId: string, runs: readonly RunSummary[], truncated: boolean): RunLineage {
  const byId = new Map(runs.map((r) => [r.runId, r]));
  let root = byId.get(runId);
  const seen = new Set<string>();
  while (root?.forkedFrom && byId.has(root.forkedFrom.runId) && !seen.has(root.runId)) {
    seen.add(root.runId);
    root = byId.get(root.forkedFrom.runId);
  }
  if (!root) return { runId, rootRunId: runId, runs: [], truncated };
  const forks = new Map<string, RunSummary[]>();
  for (const r of runs) {
    if (!r.forkedFrom || r === root) continue;
    forks.set(r.forkedFrom.runId, [...(forks.get(r.forkedFrom.runId) ?? []), r]);
  }
  const ordered: LineageRun[] = [];
  const visit = (run: RunSummary, depth: number, path: Set<string>) => {
    if (path.has(run.runId)) return;
    ordered.push(lineageRunOf(run, depth));
    const next = new Set(path).add(run.runId);
    const children = [...(forks.get(run.runId) ?? [])].sort(
      (a, b) => a.queuedAt.localeCompare(b.queuedAt) || a.runId.localeCompare(b.runId),
    );
    for (const child of children) visit(child, depth + 1, next);
  };
  visit(root, 0, new Set());
  return { runId, rootRunId: root.runId, runs: ordered, truncated };
}

function lineageRunOf(run: RunSummary, depth: number): LineageRun {
  return {
    runId: run.runId,
    depth,
    forkedFrom: run.forkedFrom,
    workflow: run.workflow,
    status: run.status,
    queuedAt: run.queuedAt,
    startedBy: run.startedBy,
  };
}

/** A fork's edge in words: the checkpoint and the event it was saved at, and who forked it (empty when unknown). */
export function forkOriginText(forkedFrom: ForkPoint): { at: string; by: string } {
  const at = forkedFrom.checkpointId ? `${forkedFrom.checkpointId} (event ${forkedFrom.seq})` : `event ${forkedFrom.seq}`;
  return { at, by: actorLabel(forkedFrom.forkedBy) };
}
