import { useEffect, useState } from 'react';
import { isSpindleApiError, type CatalogDiff, type WorkflowGraph } from '@spindle/client';
import { api } from '../api/client';
import { RunnerCapabilitiesPanel } from '../components/RunnerCapabilitiesPanel';
import { WorkflowGraphView } from '../components/WorkflowGraphView';
import { usePolling } from '../components/usePolling';
import { sampleOf } from '../model/schema-sample';
import { navigate } from '../router';

/** The catalog; a workflow's graph and versions; starting a run with an input and initial state. */
export function WorkflowsScreen({ selected }: { selected?: string }) {
  const { data } = usePolling(() => api.workflows(), 5000, []);
  return (
    <section className="page split">
      <aside className="list">
        <h1>Workflows</h1>
        <ul>
          {data?.workflows.map((w) => (
            <li key={w.name} className={w.name === selected ? 'active' : ''}>
              <a href={`#/workflows/${encodeURIComponent(w.name)}`}>{w.name}</a> <span className="muted">v{w.latestVersion}</span>
            </li>
          ))}
        </ul>
      </aside>
      {selected ? <WorkflowDetail key={selected} name={selected} /> : <p className="muted">Pick a workflow.</p>}
    </section>
  );
}

function WorkflowDetail({ name }: { name: string }) {
  const [graph, setGraph] = useState<WorkflowGraph>();
  const [definition, setDefinition] = useState<unknown>();
  const [versions, setVersions] = useState<number[]>([]);
  const [version, setVersion] = useState<number>();
  // An empty object fits any workflow that reads `input.<key>`; a parameters schema gets a value it accepts.
  const [input, setInput] = useState('{}');
  const [state, setState] = useState('');
  const [parameters, setParameters] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [compare, setCompare] = useState<number>();
  const [diff, setDiff] = useState<CatalogDiff>();
  const [catalogChanged, setCatalogChanged] = useState(0);
  useEffect(() => {
    void api.versions(name).then(
      (v) => setVersions(v.versions.map((x) => x.version)),
      () => undefined,
    );
  }, [name, catalogChanged]);
  const shown = version ?? Math.max(0, ...versions);
  useEffect(() => {
    setDiff(undefined);
    if (compare === undefined || shown === 0) return;
    void api.diff(name, compare, shown).then(setDiff, (e: Error) => setProblem(e.message));
  }, [name, compare, shown]);
  const rollBack = async (to: number) => {
    setProblem(undefined);
    try {
      await api.rollback(name, to);
      setVersion(undefined);
      setCatalogChanged((n) => n + 1);
    } catch (e) {
      setProblem(isSpindleApiError(e) ? `${e.code}: ${e.detail}` : (e as Error).message);
    }
  };
  useEffect(() => {
    void api.workflow(name, version).then(
      (w) => {
        setDefinition(w.definition);
        const schema = (w.definition as { parameters?: unknown }).parameters;
        setParameters(schema ? JSON.stringify(sampleOf(schema), null, 2) : undefined);
      },
      () => undefined,
    );
  }, [name, version]);
  useEffect(() => {
    void api.graph(name, version).then(setGraph, (e: Error) => setProblem(e.message));
  }, [name, version]);
  const start = async () => {
    setProblem(undefined);
    try {
      const body = {
        input: JSON.parse(input || 'null') as unknown,
        ...(state.trim() ? { state: JSON.parse(state) as Record<string, unknown> } : {}),
        ...(parameters?.trim() ? { parameters: JSON.parse(parameters) as Record<string, unknown> } : {}),
        ...(version ? { version } : {}),
      };
      const { runId } = await api.startRun(name, body);
      navigate(`/runs/${runId}`);
    } catch (e) {
      if (isSpindleApiError(e)) setProblem(`${e.code}: ${e.detail}`);
      else setProblem(e instanceof SyntaxError ? `not JSON: ${e.message}` : (e as Error).message);
    }
  };
  return (
    <div className="detail">
      <h2>
        {name}{' '}
        <select
          value={version ?? ''}
          onChange={(e) => setVersion(e.target.value ? Number(e.target.value) : undefined)}
          aria-label="version"
        >
          <option value="">latest (v{Math.max(0, ...versions)})</option>
          {versions.map((v) => (
            <option key={v} value={v}>
              v{v}
            </option>
          ))}
        </select>{' '}
        {versions.length > 1 && (
          <select
            value={compare ?? ''}
            onChange={(e) => setCompare(e.target.value ? Number(e.target.value) : undefined)}
            aria-label="compare with"
          >
            <option value="">compare with…</option>
            {versions
              .filter((v) => v !== shown)
              .map((v) => (
                <option key={v} value={v}>
                  v{v}
                </option>
              ))}
          </select>
        )}
      </h2>
      {diff && <VersionDiffView diff={diff} onRollBack={() => void rollBack(diff.from)} />}
      <div className="graph-box">{graph && <WorkflowGraphView graph={graph} definition={definition} />}</div>
      {definition !== undefined && <RunnerCapabilitiesPanel definition={definition} />}
      <div className="start-form">
        <label>
          input (JSON)
          <textarea value={input} onChange={(e) => setInput(e.target.value)} rows={3} aria-label="run input" />
        </label>
        <label>
          initial state (JSON object, optional)
          <textarea value={state} onChange={(e) => setState(e.target.value)} rows={3} aria-label="initial state" />
        </label>
        {parameters !== undefined && (
          <label>
            parameters (JSON, from the workflow&apos;s parameters schema)
            <textarea value={parameters} onChange={(e) => setParameters(e.target.value)} rows={3} aria-label="run parameters" />
          </label>
        )}
        <button onClick={() => void start()}>Start run</button>
        {problem && <p className="error">{problem}</p>}
      </div>
    </div>
  );
}

/** What changed from one version to the one shown: nodes and edges, then the text diff, lines marked. */
function VersionDiffView({ diff, onRollBack }: { diff: CatalogDiff; onRollBack: () => void }) {
  const names = (label: string, ids: string[]) => (ids.length ? `${label} ${ids.join(', ')}` : undefined);
  const summary = [
    names('nodes added:', diff.nodes.added),
    names('removed:', diff.nodes.removed),
    names('changed:', diff.nodes.changed),
    names('edges added:', diff.edges.added),
    names('removed:', diff.edges.removed),
  ].filter(Boolean);
  return (
    <section className="version-diff" data-testid="version-diff">
      <h3>
        v{diff.from} → v{diff.to}{' '}
        <button onClick={onRollBack} title={`save v${diff.from} again as the next version`}>
          Roll back to v{diff.from}
        </button>
      </h3>
      {diff.identical ? (
        <p className="muted">The two versions are the same.</p>
      ) : (
        <>
          <p className="muted">{summary.join('; ') || `${diff.changes.length} field(s) changed`}</p>
          {diff.text === null ? (
            <p className="muted">Too many lines changed to show a text diff.</p>
          ) : (
            <pre className="diff-text">
              {diff.text
                .split('\n')
                .slice(3)
                .map((line, i) => (
                  <span key={i} className={line.startsWith('+') ? 'added' : line.startsWith('-') ? 'removed' : undefined}>
                    {line}
                    {'\n'}
                  </span>
                ))}
            </pre>
          )}
        </>
      )}
    </section>
  );
}
