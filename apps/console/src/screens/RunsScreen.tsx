import { api } from '../api/client';
import { cost, ms, time } from '../components/format';
import { usePolling } from '../components/usePolling';
import { actorLabel } from '../model/actor-label';
import { navigate } from '../router';

const STATUSES = ['', 'queued', 'running', 'awaiting_input', 'awaiting_approval', 'completed', 'failed', 'canceled'];

/** Runs, newest first, refreshed every two seconds; filters live in the URL. */
export function RunsScreen({ query }: { query: URLSearchParams }) {
  const workflow = query.get('workflow') ?? '';
  const status = query.get('status') ?? '';
  const { data, error } = usePolling(() => api.runs({ workflow, status }), 2000, [workflow, status]);
  const setFilter = (key: string, value: string) => {
    const q = new URLSearchParams(query);
    if (value) q.set(key, value);
    else q.delete(key);
    navigate(`/runs?${q}`, true);
  };
  return (
    <section className="page">
      <h1>Runs</h1>
      <div className="filters">
        <input
          placeholder="workflow"
          value={workflow}
          onChange={(e) => setFilter('workflow', e.target.value)}
          aria-label="filter by workflow"
        />
        <select value={status} onChange={(e) => setFilter('status', e.target.value)} aria-label="filter by status">
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s || 'any status'}
            </option>
          ))}
        </select>
        {error && <span className="error">{error}</span>}
      </div>
      <table className="grid" data-testid="runs-table">
        <thead>
          <tr>
            <th>run</th>
            <th>workflow</th>
            <th>version</th>
            <th>status</th>
            <th>started</th>
            <th>by</th>
            <th>duration</th>
            <th>tokens</th>
            <th>cost</th>
          </tr>
        </thead>
        <tbody>
          {data?.runs.map((r) => (
            <tr key={r.runId} data-run-id={r.runId} onClick={() => navigate(`/runs/${r.runId}`)} className="clickable">
              <td className="mono">{r.runId.slice(-10)}</td>
              <td>{r.workflow.name}</td>
              <td>v{r.workflow.version}</td>
              <td>
                <span className={`status ${r.status}`}>{r.status}</span>
              </td>
              <td>{time(r.startedAt ?? r.queuedAt)}</td>
              <td>{actorLabel(r.startedBy)}</td>
              <td>{ms(r.durationMs)}</td>
              <td>{r.usage.totalTokens}</td>
              <td>{cost(r.usage)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
