import type { Experiment, ExperimentComparison } from '@spindle/contracts';
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { dateTime, relativeTime } from '../components/format';
import { usePolling } from '../components/usePolling';
import { comparedRows, comparedScoreNames, meanText } from '../model/experiment-view';
import { navigate } from '../router';

/** Experiments: a dataset version run through a workflow version; pick two or more to compare them item by item. */
export function ExperimentsScreen({ query }: { query: URLSearchParams }) {
  const ids = query.get('compare')?.split(',').filter(Boolean) ?? [];
  if (ids.length >= 2) return <ExperimentComparisonView key={ids.join(',')} ids={ids} />;
  return <ExperimentList />;
}

function ExperimentList() {
  const { data, error } = usePolling(() => api.experiments(), 2000, []);
  const [picked, setPicked] = useState<string[]>([]);
  const experiments = data?.experiments ?? [];
  const scoreNames = [...new Set(experiments.flatMap((e) => Object.keys(e.summary.scores)))].sort();
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id]));
  return (
    <section className="page">
      <h1>Experiments</h1>
      {error && <p className="error">{error}</p>}
      {data && experiments.length === 0 && (
        <p className="muted">No experiments yet: `spindle experiments run &lt;workflow&gt; --dataset &lt;name&gt;` runs one.</p>
      )}
      {experiments.length > 0 && (
        <>
          <p>
            <button type="button" disabled={picked.length < 2} onClick={() => navigate(`/experiments?compare=${picked.join(',')}`)}>
              Compare {picked.length >= 2 ? picked.length : ''} selected
            </button>{' '}
            <span className="muted">pick two or more over one dataset</span>
          </p>
          <div className="table-scroll">
            <table className="grid" data-testid="experiments-table">
              <thead>
                <tr>
                  <th />
                  <th>experiment</th>
                  <th>status</th>
                  <th>workflow</th>
                  <th>dataset</th>
                  <th>items</th>
                  {scoreNames.map((n) => (
                    <th key={n}>{n}</th>
                  ))}
                  <th>cost</th>
                  <th>started</th>
                </tr>
              </thead>
              <tbody>
                {experiments.map((e) => (
                  <ExperimentRow
                    key={e.experimentId}
                    e={e}
                    scoreNames={scoreNames}
                    picked={picked.includes(e.experimentId)}
                    onPick={toggle}
                  />
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

function ExperimentRow({
  e,
  scoreNames,
  picked,
  onPick,
}: {
  e: Experiment;
  scoreNames: string[];
  picked: boolean;
  onPick: (id: string) => void;
}) {
  return (
    <tr data-experiment-id={e.experimentId}>
      <td>
        <input type="checkbox" checked={picked} onChange={() => onPick(e.experimentId)} aria-label={`pick ${e.experimentId}`} />
      </td>
      <td>
        <span className="mono">{e.experimentId}</span>
        {e.name && <div className="muted">{e.name}</div>}
      </td>
      <td>
        <span className={`status ${e.status === 'running' ? 'running' : e.status === 'completed' ? 'completed' : 'failed'}`}>
          {e.status}
        </span>
      </td>
      <td>
        {e.workflow.name} v{e.workflow.version}
      </td>
      <td>
        {e.dataset.name} v{e.dataset.version}
      </td>
      <td>
        {Object.entries(e.summary.byStatus)
          .map(([status, n]) => `${n} ${status}`)
          .join(', ')}
      </td>
      {scoreNames.map((n) => (
        <td key={n} data-score={n}>
          {meanText(e.summary.scores[n]?.mean)}
        </td>
      ))}
      <td>${e.summary.costUsd.toFixed(4)}</td>
      <td title={dateTime(e.createdAt)}>{relativeTime(e.createdAt)}</td>
    </tr>
  );
}

function ExperimentComparisonView({ ids }: { ids: string[] }) {
  const [comparison, setComparison] = useState<ExperimentComparison>();
  const [problem, setProblem] = useState<string>();
  const [onlyDiffering, setOnlyDiffering] = useState(false);
  useEffect(() => {
    void api.compareExperiments(ids).then(setComparison, (e: Error) => setProblem(e.message));
  }, [ids.join(',')]);
  if (problem) return <p className="error page">{problem}</p>;
  if (!comparison) return <p className="muted page">Comparing…</p>;
  const scoreNames = comparedScoreNames(comparison);
  const rows = comparedRows(comparison).filter((r) => !onlyDiffering || r.differs);
  const downloadCsv = () =>
    void api.compareExperimentsCsv(ids).then((csv) => {
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      Object.assign(document.createElement('a'), { href: url, download: `compare-${ids.join('-')}.csv` }).click();
      URL.revokeObjectURL(url);
    });
  return (
    <section className="page" data-testid="experiment-comparison">
      <p>
        <a href="#/experiments">← Experiments</a>
      </p>
      <h1>Compare experiments</h1>
      <table className="grid" data-testid="comparison-summary">
        <thead>
          <tr>
            <th>experiment</th>
            <th>workflow</th>
            {scoreNames.map((n) => (
              <th key={n}>{n} (mean)</th>
            ))}
            <th>tokens</th>
            <th>cost</th>
            <th>p50 wall</th>
          </tr>
        </thead>
        <tbody>
          {comparison.experiments.map((e) => (
            <tr key={e.experimentId} data-experiment-id={e.experimentId}>
              <td className="mono">{e.name ?? e.experimentId}</td>
              <td>
                {e.workflow.name} v{e.workflow.version}
              </td>
              {scoreNames.map((n) => (
                <td key={n} data-score={n}>
                  {meanText(e.summary.scores[n]?.mean)}
                </td>
              ))}
              <td>{e.summary.totalTokens}</td>
              <td>${e.summary.costUsd.toFixed(4)}</td>
              <td>{e.summary.wallMsP50 === null ? '–' : `${Math.round(e.summary.wallMsP50)} ms`}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        <label className="inline">
          <input type="checkbox" checked={onlyDiffering} onChange={(e) => setOnlyDiffering(e.target.checked)} /> only items that differ
        </label>{' '}
        <button type="button" onClick={downloadCsv}>
          Download CSV
        </button>
      </p>
      <div className="table-scroll">
        <table className="grid" data-testid="comparison-items">
          <thead>
            <tr>
              <th>input</th>
              <th>expected</th>
              {comparison.experiments.map((e) => (
                <th key={e.experimentId}>{e.name ?? e.experimentId}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.itemId} data-item-id={row.itemId} className={row.differs ? 'differs' : ''}>
                <td className="mono">{row.input}</td>
                <td className="mono">{row.expected}</td>
                {row.cells.map((cell, i) => (
                  <td key={comparison.experiments[i]!.experimentId}>
                    {cell ? (
                      <>
                        <div className="mono">{cell.output}</div>
                        <div className="muted" data-testid="item-figures">
                          {cell.figures}
                        </div>
                        <div className="muted">
                          {Object.entries(cell.scores)
                            .map(([n, v]) => `${n} ${v}`)
                            .join(' · ')}{' '}
                          {cell.runId && <a href={`#/runs/${cell.runId}`}>run</a>}
                        </div>
                      </>
                    ) : (
                      <span className="muted">not in this experiment</span>
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
