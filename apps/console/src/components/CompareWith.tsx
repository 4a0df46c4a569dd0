import type { RunSummary } from '@spindle/contracts';
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { navigate } from '../router';

/** "Compare with…": another run of the same workflow (its parent first, when it is a fork), or any run id. */
export function CompareWith({ runId, workflow, forkedFrom }: { runId: string; workflow?: string; forkedFrom?: string }) {
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [other, setOther] = useState(forkedFrom ?? '');
  // The run's log arrives after the page: a fork's parent is offered once it is known.
  useEffect(() => {
    if (forkedFrom) setOther((typed) => typed || forkedFrom);
  }, [forkedFrom]);
  useEffect(() => {
    if (workflow)
      void api.runs({ workflow, sort: 'started', order: 'desc' }).then(
        (page) => setRuns(page.runs.filter((r) => r.runId !== runId).slice(0, 20)),
        () => undefined,
      );
  }, [runId, workflow]);
  return (
    <span className="compare-with">
      <input
        list={`compare-${runId}`}
        placeholder="compare with run…"
        value={other}
        onChange={(e) => setOther(e.target.value.trim())}
        aria-label="compare with run"
        className="mono"
      />
      <datalist id={`compare-${runId}`}>
        {forkedFrom && <option value={forkedFrom}>the run this one was forked from</option>}
        {runs.map((r) => (
          <option key={r.runId} value={r.runId}>
            {r.status} · {r.queuedAt}
          </option>
        ))}
      </datalist>
      <button onClick={() => other && navigate(`/compare/${runId}/${other}`)} disabled={!other || other === runId}>
        Compare
      </button>
    </span>
  );
}
