import type { Overview } from '@spindle/contracts';
import type { ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, ComposedChart, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api } from '../api/client';
import { dateTime, ms, relativeTime } from '../components/format';
import { usePolling } from '../components/usePolling';
import { chartDays, pendingTotal, successRate } from '../model/overview-view';
import { navigate } from '../router';

const DAYS = [1, 7, 14, 30, 90];
const COLOURS = {
  completed: 'var(--c-2e9b52)',
  failed: 'var(--c-d23c3c)',
  canceled: 'var(--c-7a8599)',
  active: 'var(--c-3b6fe0)',
  tokens: 'var(--c-6b8fd6)',
  cost: 'var(--c-7a3fb8)',
  p95: 'var(--c-e6a100)',
};
const axis = { stroke: 'var(--c-7a8599)', fontSize: 11 };
const tooltip = { contentStyle: { background: 'var(--c-ffffff)', border: '1px solid var(--c-dde1e8)' } };
/** A bar chart's tooltip without recharts' grey hover band, which reads like one more bar. */
const barTooltip = { ...tooltip, cursor: false };

/** Overview dashboards: the tenant's runs over the last days, overall or for one workflow, from the projections' queries. */
export function OverviewScreen({ query }: { query: URLSearchParams }) {
  const workflow = query.get('workflow') ?? '';
  const days = DAYS.includes(Number(query.get('days'))) ? Number(query.get('days')) : 14;
  const { data, error } = usePolling(() => api.overview({ workflow: workflow || undefined, days }), 10_000, [workflow, days]);
  const workflows = usePolling(() => api.workflows(), 60_000, []).data?.workflows ?? [];
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(query);
    if (value) next.set(key, value);
    else next.delete(key);
    navigate(`/overview${next.size ? `?${next}` : ''}`, true);
  };
  return (
    <section className="page overview" data-testid="overview">
      <h1>Overview</h1>
      <div className="filters">
        <select value={workflow} onChange={(e) => set('workflow', e.target.value)} aria-label="workflow">
          <option value="">all workflows</option>
          {workflows.map((w) => (
            <option key={w.name} value={w.name}>
              {w.name}
            </option>
          ))}
        </select>
        <select value={days} onChange={(e) => set('days', e.target.value)} aria-label="days">
          {DAYS.map((d) => (
            <option key={d} value={d}>
              {d === 1 ? 'today (UTC)' : `last ${d} days`}
            </option>
          ))}
        </select>
        {error && <span className="error">{error}</span>}
      </div>
      {data && <Dashboards overview={data} />}
    </section>
  );
}

function Dashboards({ overview }: { overview: Overview }) {
  const { totals } = overview;
  const rows = chartDays(overview);
  const rate = successRate(totals);
  const runsLink = (extra: string) =>
    `#/runs?${new URLSearchParams({ ...(overview.workflow ? { workflow: overview.workflow } : {}) })}${extra}`;
  return (
    <>
      <div className="tiles" data-testid="overview-totals">
        <Tile label="runs" value={totals.runs.toLocaleString()} />
        <Tile label="succeeded" value={rate === undefined ? '–' : `${(rate * 100).toFixed(1)} %`} />
        <Tile label="failed" value={totals.failed.toLocaleString()} href={runsLink('&status=failed')} />
        <Tile label="active now" value={totals.active.toLocaleString()} />
        <Tile label="wall time p50 / p95" value={`${ms(totals.p50DurationMs)} / ${ms(totals.p95DurationMs)}`} />
        <Tile label="tokens" value={totals.totalTokens.toLocaleString()} />
        <Tile label="cost" value={`$${totals.costUsd.toFixed(4)}`} />
        <Tile
          label="waiting for a person"
          value={pendingTotal(overview).toLocaleString()}
          note={
            overview.pendingRequests.oldestRequestedAt ? `oldest ${relativeTime(overview.pendingRequests.oldestRequestedAt)}` : undefined
          }
          href="#/inbox"
        />
      </div>
      <div className="charts">
        <Chart title="Runs per day, by status">
          <BarChart data={rows}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--c-e6e9ef)" />
            <XAxis dataKey="label" {...axis} />
            <YAxis allowDecimals={false} {...axis} />
            <Tooltip {...tooltip} />
            <Legend />
            {(['completed', 'failed', 'canceled', 'active'] as const).map((status) => (
              <Bar key={status} dataKey={status} stackId="runs" fill={COLOURS[status]} isAnimationActive={false} />
            ))}
          </BarChart>
        </Chart>
        <Chart title="Wall time per day, p50 and p95 (s)">
          <LineChart data={rows}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--c-e6e9ef)" />
            <XAxis dataKey="label" {...axis} />
            <YAxis {...axis} />
            <Tooltip {...tooltip} />
            <Legend />
            <Line dataKey="p50s" name="p50" stroke={COLOURS.active} dot={{ r: 2 }} connectNulls isAnimationActive={false} />
            <Line dataKey="p95s" name="p95" stroke={COLOURS.p95} dot={{ r: 2 }} connectNulls isAnimationActive={false} />
          </LineChart>
        </Chart>
        <Chart title="Tokens and cost per day">
          <ComposedChart data={rows}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--c-e6e9ef)" />
            <XAxis dataKey="label" {...axis} />
            <YAxis yAxisId="tokens" {...axis} />
            <YAxis yAxisId="cost" orientation="right" {...axis} tickFormatter={(v: number) => `$${v}`} />
            <Tooltip {...tooltip} />
            <Legend />
            <Bar yAxisId="tokens" dataKey="tokens" fill={COLOURS.tokens} isAnimationActive={false} />
            <Line yAxisId="cost" dataKey="cost" name="cost (USD)" stroke={COLOURS.cost} dot={{ r: 2 }} isAnimationActive={false} />
          </ComposedChart>
        </Chart>
        <Chart title="Requests waiting for a person, by age">
          <BarChart data={overview.pendingRequests.buckets}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--c-e6e9ef)" />
            <XAxis dataKey="age" {...axis} />
            <YAxis allowDecimals={false} {...axis} />
            <Tooltip {...barTooltip} />
            <Bar dataKey="requests" fill={COLOURS.p95} isAnimationActive={false} />
          </BarChart>
        </Chart>
      </div>
      <div className="overview-tables">
        <div className="pane-card">
          <h3>Top error codes</h3>
          <table className="grid" data-testid="top-errors">
            <tbody>
              {overview.topErrors.map((e) => (
                <tr key={e.code}>
                  <td className="mono">
                    <a href={runsLink(`&errorCode=${encodeURIComponent(e.code)}`)}>{e.code}</a>
                  </td>
                  <td className="num">
                    {e.runs.toLocaleString()} run{e.runs === 1 ? '' : 's'}
                  </td>
                </tr>
              ))}
              {overview.topErrors.length === 0 && (
                <tr>
                  <td className="muted">No run failed.</td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        <div className="pane-card">
          <h3>Slowest nodes (p95)</h3>
          <table className="grid" data-testid="slowest-nodes">
            <thead>
              <tr>
                <th>node</th>
                <th>workflow</th>
                <th className="num">executions</th>
                <th className="num">p50</th>
                <th className="num">p95</th>
              </tr>
            </thead>
            <tbody>
              {overview.slowestNodes.map((n) => (
                <tr key={`${n.workflow}/${n.nodeId}`}>
                  <td className="mono">{n.nodeId}</td>
                  <td>{n.workflow}</td>
                  <td className="num">{n.executions.toLocaleString()}</td>
                  <td className="num">{ms(n.p50Ms)}</td>
                  <td className="num">{ms(n.p95Ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {overview.scores.length > 0 && (
          <div className="pane-card">
            <h3>Scores by day and version</h3>
            <table className="grid" data-testid="score-trend">
              <thead>
                <tr>
                  <th>score</th>
                  <th>day</th>
                  <th>workflow</th>
                  <th className="num">runs scored</th>
                  <th className="num">mean</th>
                </tr>
              </thead>
              <tbody>
                {overview.scores.slice(0, 20).map((p) => (
                  <tr key={`${p.name}/${p.day}/${p.workflow}/${p.workflowVersion}`}>
                    <td className="mono">{p.name}</td>
                    <td>{p.day}</td>
                    <td>
                      {p.workflow} v{p.workflowVersion}
                    </td>
                    <td className="num">{p.count.toLocaleString()}</td>
                    <td className="num">{p.mean === null ? '-' : p.mean.toFixed(2)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
      <p className="muted">
        {dateTime(overview.from)} to {dateTime(overview.to)} (UTC days); refreshed every ten seconds.
      </p>
    </>
  );
}

function Tile({ label, value, note, href }: { label: string; value: string; note?: string; href?: string }) {
  const body = (
    <>
      <div className="tile-value">{value}</div>
      <div className="tile-label">{label}</div>
      {note && <div className="tile-note muted">{note}</div>}
    </>
  );
  return (
    <div className="tile" data-label={label}>
      {href ? <a href={href}>{body}</a> : body}
    </div>
  );
}

function Chart({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="pane-card chart">
      <h3>{title}</h3>
      <ResponsiveContainer width="100%" height={220}>
        {children as React.ReactElement}
      </ResponsiveContainer>
    </div>
  );
}
