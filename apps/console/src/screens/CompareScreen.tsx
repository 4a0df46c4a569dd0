import type { RunEvent } from '@spindle/contracts';
import { isSpindleApiError } from '@spindle/client';
import { Fragment, useEffect, useMemo, useState } from 'react';
import { api } from '../api/client';
import { json, ms } from '../components/format';
import { compareRuns, nodeDiffers, type NodeComparison, type NodeSide } from '../model/run-comparison';
import { NotFound } from './NotFound';

/** Two runs side by side: their inputs and outputs, then node by node, what differs highlighted. */
export function CompareScreen({ a, b }: { a: string; b: string }) {
  const [logs, setLogs] = useState<[RunEvent[], RunEvent[]]>();
  const [missing, setMissing] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [onlyDifferences, setOnlyDifferences] = useState(false);
  useEffect(() => {
    const load = (runId: string) =>
      api.events(runId).then(
        (page) => page.events,
        (e: Error) => {
          if (isSpindleApiError(e) && e.status === 404) setMissing(runId);
          throw e;
        },
      );
    Promise.all([load(a), load(b)]).then(setLogs, (e: Error) => setProblem(e.message));
  }, [a, b]);
  const comparison = useMemo(() => logs && compareRuns(logs[0], logs[1]), [logs]);
  if (missing) return <NotFound what={`No run ${missing} here.`} />;
  if (!comparison) return <p className="page muted">{problem ?? 'Loading…'}</p>;
  const rows = onlyDifferences ? comparison.nodes.filter(nodeDiffers) : comparison.nodes;
  const differing = comparison.nodes.filter(nodeDiffers).length;
  return (
    <section className="page compare" data-testid="compare">
      <h1>Compare runs</h1>
      <table className="grid compare-table">
        <thead>
          <tr>
            <th />
            {[comparison.a, comparison.b].map((side) => (
              <th key={side.runId}>
                <a className="mono" href={`#/runs/${side.runId}`}>
                  {side.runId}
                </a>{' '}
                <span className="muted">
                  {side.workflow?.name} v{side.workflow?.version}
                </span>{' '}
                <span className={`status ${side.status}`}>{side.status}</span>
                {side.forkedFrom && (
                  <span className="muted" data-testid="compare-fork-of">
                    {' '}
                    fork of <span className="mono">{side.forkedFrom.runId}</span> at{' '}
                    {side.forkedFrom.checkpointId ?? `event ${side.forkedFrom.seq}`}
                  </span>
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr className={comparison.differs.input ? 'differs' : ''}>
            <th>input</th>
            <td>
              <pre>{json(comparison.a.input)}</pre>
            </td>
            <td>
              <pre>{json(comparison.b.input)}</pre>
            </td>
          </tr>
          <tr className={comparison.differs.output || comparison.differs.status ? 'differs' : ''}>
            <th>output</th>
            <td>
              <pre>{json(comparison.a.output ?? comparison.a.error)}</pre>
            </td>
            <td>
              <pre>{json(comparison.b.output ?? comparison.b.error)}</pre>
            </td>
          </tr>
        </tbody>
      </table>
      <div className="filters">
        <b>
          {differing} of {comparison.nodes.length} nodes differ
        </b>
        <label className="inline">
          <input type="checkbox" checked={onlyDifferences} onChange={(e) => setOnlyDifferences(e.target.checked)} /> only what differs
        </label>
      </div>
      <table className="grid compare-table" data-testid="compare-nodes">
        <tbody>
          {rows.map((node) => (
            <NodeRows key={node.nodeId} node={node} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function NodeRows({ node }: { node: NodeComparison }) {
  const { differs } = node;
  return (
    <Fragment>
      <tr className={`node-row${nodeDiffers(node) ? ' differs' : ''}`} data-node-id={node.nodeId} data-differs={nodeDiffers(node)}>
        <th>{node.nodeId}</th>
        <NodeCell node={node} side="a" />
        <NodeCell node={node} side="b" />
      </tr>
      {differs.input && <DetailRow label="input" a={node.a?.input} b={node.b?.input} />}
      {differs.output && <DetailRow label="output" a={node.a?.output ?? node.a?.error} b={node.b?.output ?? node.b?.error} />}
    </Fragment>
  );
}

/** One run's side of a node: what it did there, or that its result came with the checkpoint it was forked from. */
function NodeCell({ node, side }: { node: NodeComparison; side: 'a' | 'b' }) {
  const { differs } = node;
  const changed = differs.status || differs.presence || differs.executions;
  if (node.inherited === side)
    return (
      <td className="inherited muted" data-inherited="true" title="this run is a fork from a checkpoint after the node had run">
        inherited from parent
      </td>
    );
  return <td className={changed ? 'changed' : ''}>{summary(node[side])}</td>;
}

function DetailRow({ label, a, b }: { label: string; a: unknown; b: unknown }) {
  return (
    <tr className="node-detail">
      <th className="muted">{label}</th>
      <td>
        <pre className="changed">{json(a)}</pre>
      </td>
      <td>
        <pre className="changed">{json(b)}</pre>
      </td>
    </tr>
  );
}

function summary(side: NodeSide | undefined): string {
  if (!side) return 'not reached';
  const runs = side.executions > 1 ? ` ×${side.executions}` : '';
  const working = side.workingMs !== undefined && side.workingMs !== side.wallMs ? ` (working ${ms(side.workingMs)})` : '';
  return `${side.status}${runs} · wall ${ms(side.wallMs)}${working}`;
}
