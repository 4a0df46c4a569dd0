import type { Replay, ReplayRunReport } from '@spindle/contracts';
import { api } from '../api/client';
import { dateTime, relativeTime } from '../components/format';
import { usePolling } from '../components/usePolling';

/** Replays: recorded runs re-driven through a version; one replay's runs, each with where it first diverged. */
export function ReplaysScreen({ selected }: { selected?: string }) {
  return selected ? <ReplayView key={selected} replayId={selected} /> : <ReplayList />;
}

function ReplayList() {
  const { data, error } = usePolling(() => api.replays(), 2000, []);
  const replays = data?.replays ?? [];
  return (
    <section className="page">
      <h1>Replays</h1>
      {error && <p className="error">{error}</p>}
      {data && replays.length === 0 && (
        <p className="muted">No replays yet: `spindle replays run &lt;workflow&gt; --last 20` replays a workflow’s last runs.</p>
      )}
      {replays.length > 0 && (
        <div className="table-scroll">
          <table className="grid" data-testid="replays-table">
            <thead>
              <tr>
                <th>replay</th>
                <th>workflow</th>
                <th>on divergence</th>
                <th>runs</th>
                <th>made</th>
              </tr>
            </thead>
            <tbody>
              {replays.map((r) => (
                <tr key={r.replayId}>
                  <td>
                    <a className="mono" href={`#/replays/${r.replayId}`}>
                      {r.replayId}
                    </a>
                  </td>
                  <td>
                    {r.workflow.name} v{r.workflow.version}
                  </td>
                  <td>{r.onDivergence}</td>
                  <td>{r.runs}</td>
                  <td title={dateTime(r.createdAt)}>{relativeTime(r.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ReplayView({ replayId }: { replayId: string }) {
  // Until every run's replay has ended its report changes: polled.
  const { data: replay, error } = usePolling(() => api.replay(replayId), 1500, [replayId]);
  if (error) return <p className="error page">{error}</p>;
  if (!replay) return <p className="muted page">Loading…</p>;
  return (
    <section className="page" data-testid="replay">
      <p>
        <a href="#/replays">← Replays</a>
      </p>
      <h1>
        Replay of {replay.workflow.name} runs through v{replay.workflow.version}
      </h1>
      <ReplaySummary replay={replay} />
      <div className="table-scroll">
        <table className="grid" data-testid="replay-runs">
          <thead>
            <tr>
              <th>recorded run</th>
              <th>replay</th>
              <th>outcome</th>
              <th>diverged at</th>
              <th>what differs</th>
              <th>calls served / made</th>
              <th>cost recorded / replay / spent</th>
            </tr>
          </thead>
          <tbody>
            {replay.runs.map((run) => (
              <ReplayRunRow key={run.runId} run={run} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function ReplaySummary({ replay }: { replay: Replay }) {
  const { byOutcome, costUsd } = replay.summary;
  return (
    <p className="muted" data-testid="replay-summary">
      {Object.entries(byOutcome)
        .map(([outcome, n]) => `${n} ${outcome}`)
        .join(', ')}{' '}
      · at a call the recording lacks: {replay.onDivergence === 'stop' ? 'stop' : 'call for real'} · cost recorded ${usd(costUsd.recorded)},
      replay ${usd(costUsd.replay)}, spent ${usd(costUsd.spent)}
    </p>
  );
}

function ReplayRunRow({ run }: { run: ReplayRunReport }) {
  const d = run.divergence;
  const status = run.outcome === 'same' ? 'completed' : run.outcome === 'pending' ? 'running' : 'failed';
  return (
    <tr data-run-id={run.runId} data-outcome={run.outcome}>
      <td>
        <a className="mono" href={`#/runs/${run.sourceRunId}`}>
          {run.sourceRunId}
        </a>
      </td>
      <td>
        <a className="mono" href={`#/runs/${run.runId}`}>
          {run.runId}
        </a>{' '}
        <a href={`#/compare/${run.sourceRunId}/${run.runId}`} title="compare the recorded run with its replay">
          compare
        </a>
      </td>
      <td>
        <span className={`status ${status}`}>{run.outcome}</span>
      </td>
      <td>{d ? `${d.kind.replace('_', ' ')}${d.nodeId ? ` · ${d.nodeId}` : ''} (seq ${d.seq})` : '-'}</td>
      <td data-testid="divergence-detail">{d?.detail ?? run.error?.message ?? '-'}</td>
      <td>
        {run.calls.modelServed + run.calls.toolServed} / {run.calls.modelMade + run.calls.toolMade}
      </td>
      <td>
        ${usd(run.costUsd.recorded)} / ${usd(run.costUsd.replay)} / ${usd(run.costUsd.spent)}
      </td>
    </tr>
  );
}

const usd = (n: number) => n.toFixed(4);
