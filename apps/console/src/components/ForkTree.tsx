import { type RunLineage, actorLabel, forkOriginText } from '@spindle/contracts';
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { forkTreeRows } from '../model/run-lineage';
import { dateTime } from './format';

/**
 * A run's fork tree (`GET /v1/runs/{id}/lineage`): the root, its forks, their forks, each edge
 * with the checkpoint it was forked at and by whom; the run `current` is marked. Hidden while the
 * tree is the run alone. Reloaded when `reload` changes (after a fork, say).
 */
export function ForkTree({ runId, current = runId, reload }: { runId: string; current?: string; reload?: unknown }) {
  const [lineage, setLineage] = useState<RunLineage>();
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    let live = true;
    api.lineage(runId).then(
      (l) => live && setLineage(l),
      (e: Error) => live && setProblem(e.message),
    );
    return () => {
      live = false;
    };
  }, [runId, reload]);
  if (problem) return <p className="error">fork tree: {problem}</p>;
  if (!lineage || lineage.runs.length < 2) return null;
  return <ForkTreeView lineage={lineage} current={current} />;
}

/** A loaded fork tree, drawn. */
export function ForkTreeView({ lineage, current }: { lineage: RunLineage; current?: string }) {
  return (
    <details className="fork-tree" data-testid="fork-tree" data-root={lineage.runs[0]?.runId} open>
      <summary>
        Fork tree <span className="muted">({lineage.runs.length} runs)</span>
      </summary>
      <ul>
        {forkTreeRows(lineage.runs).map(({ run, guide }) => {
          const edge = run.forkedFrom && run.depth > 0 ? forkOriginText(run.forkedFrom) : undefined;
          return (
            <li key={run.runId} data-run-id={run.runId} data-depth={run.depth} className={run.runId === current ? 'current' : ''}>
              <span className="mono guide" aria-hidden>
                {guide}
              </span>
              <a className="mono" href={`#/runs/${run.runId}`} aria-current={run.runId === current ? 'page' : undefined}>
                {run.runId}
              </a>{' '}
              <span className={`status ${run.status}`}>{run.status}</span>{' '}
              <span className="muted">
                {edge ? `at ${edge.at}${edge.by ? ` by ${edge.by}` : ''}` : `${run.workflow.name} v${run.workflow.version}`} ·{' '}
                {dateTime(run.queuedAt)}
                {run.depth === 0 && run.startedBy ? ` · started by ${actorLabel(run.startedBy)}` : ''}
              </span>
            </li>
          );
        })}
      </ul>
      {lineage.truncated && <p className="muted">The tree is larger: its deepest forks are left out.</p>}
    </details>
  );
}
