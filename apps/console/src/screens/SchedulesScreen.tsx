import { useState } from 'react';
import { api } from '../api/client';
import { CopyId } from '../components/CopyId';
import { dateTime, relativeTime } from '../components/format';
import { usePolling } from '../components/usePolling';
import { firingRows, scheduleControls } from '../model/control-views';
import { navigate } from '../router';

/** Schedules: workflows run on a cron; one's next firings, pause, resume and trigger, and its firing history. */
export function SchedulesScreen({ selected }: { selected?: string }) {
  if (selected) return <ScheduleDetail key={selected} scheduleId={selected} />;
  return <ScheduleList />;
}

function ScheduleList() {
  const { data, error } = usePolling(() => api.schedules(), 3000, []);
  return (
    <section className="page">
      <h1>Schedules</h1>
      {error && <p className="error">{error}</p>}
      {data?.schedules.length === 0 && <p className="muted">No schedules yet: POST /v1/schedules runs a workflow on a cron.</p>}
      {data && data.schedules.length > 0 && (
        <table className="grid" data-testid="schedules-table">
          <thead>
            <tr>
              <th>schedule</th>
              <th>cron</th>
              <th>zone</th>
              <th>workflow</th>
              <th>state</th>
              <th>next firing</th>
            </tr>
          </thead>
          <tbody>
            {data.schedules.map((s) => (
              <tr
                key={s.scheduleId}
                data-schedule-id={s.scheduleId}
                className="clickable"
                onClick={() => navigate(`/schedules/${s.scheduleId}`)}
              >
                <td>
                  <a href={`#/schedules/${s.scheduleId}`}>{s.scheduleId}</a>
                </td>
                <td>
                  <code>{s.cron}</code>
                </td>
                <td>{s.timezone}</td>
                <td>
                  {s.workflow} {s.version === null ? '(latest)' : `v${s.version}`}
                </td>
                <td>
                  <span className={`status ${s.paused ? 'canceled' : 'completed'}`}>{s.paused ? 'paused' : 'active'}</span>
                </td>
                <td title={dateTime(s.nextFireAt)}>{s.nextFireAt ? relativeTime(s.nextFireAt) : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function ScheduleDetail({ scheduleId }: { scheduleId: string }) {
  const { data, error, reload } = usePolling(() => api.schedule(scheduleId), 2000, [scheduleId]);
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const change = async (what: 'pause' | 'resume' | 'trigger') => {
    setProblem(undefined);
    setBusy(true);
    try {
      await api.changeSchedule(scheduleId, what);
      reload();
    } catch (e) {
      setProblem((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const s = data?.schedule;
  const controls = s ? scheduleControls(s) : undefined;
  return (
    <section className="page" data-testid="schedule-page">
      <p>
        <a href="#/schedules">← Schedules</a>
      </p>
      <h1>
        Schedule <CopyId id={scheduleId} what="schedule" />
      </h1>
      {(error || problem) && <p className="error">{problem ?? error}</p>}
      {s && controls && (
        <>
          <p>
            <span className={`status ${s.paused ? 'canceled' : 'completed'}`} data-testid="schedule-state">
              {s.paused ? 'paused' : 'active'}
            </span>{' '}
            · <code>{s.cron}</code> in {s.timezone} · runs <a href={`#/workflows/${encodeURIComponent(s.workflow)}`}>{s.workflow}</a>{' '}
            {s.version === null ? '(latest version)' : `v${s.version}`} · overlap {s.overlap} · catch-up {s.catchUp}
          </p>
          <p className="actions">
            {controls.pause && (
              <button disabled={busy} onClick={() => void change('pause')}>
                Pause
              </button>
            )}
            {controls.resume && (
              <button disabled={busy} onClick={() => void change('resume')}>
                Resume
              </button>
            )}
            <button disabled={busy} onClick={() => void change('trigger')}>
              Trigger now
            </button>
          </p>
          <h2>Next firings</h2>
          <p className="muted">
            Times in this browser&apos;s zone ({Intl.DateTimeFormat().resolvedOptions().timeZone}); the cron reads {s.timezone}.
          </p>
          {s.upcoming.length === 0 ? (
            <p className="muted">None while paused: resuming fires again from the next cron time, without making up what was missed.</p>
          ) : (
            <ol data-testid="upcoming-firings">
              {s.upcoming.map((t) => (
                <li key={t}>
                  {dateTime(t)} <span className="muted">({relativeTime(t)})</span>
                </li>
              ))}
            </ol>
          )}
          <h2>Firing history</h2>
          {data.firings.length === 0 ? (
            <p className="muted">No firings yet.</p>
          ) : (
            <table className="grid" data-testid="firing-history">
              <thead>
                <tr>
                  <th>fired</th>
                  <th>outcome</th>
                  <th>run</th>
                  <th>detail</th>
                </tr>
              </thead>
              <tbody>
                {firingRows(data.firings).map((f) => (
                  <tr key={f.fireAt}>
                    <td>{dateTime(f.fireAt)}</td>
                    <td>
                      <span className={`status ${f.tone}`}>{f.outcome}</span>
                    </td>
                    <td>{f.runId ? <a href={`#/runs/${f.runId}`}>{f.runId}</a> : '–'}</td>
                    <td>{f.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
