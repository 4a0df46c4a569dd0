import { api } from '../api/client';
import { CopyId } from '../components/CopyId';
import { JsonTree } from '../components/JsonTree';
import { ThreadForks } from '../components/ThreadForks';
import { dateTime, relativeTime } from '../components/format';
import { usePolling } from '../components/usePolling';
import { threadCreator, threadRunBadge } from '../model/control-views';
import { navigate } from '../router';

/** Threads: runs that share a state; a thread's runs in order and the state its next run starts from. */
export function ThreadsScreen({ selected }: { selected?: string }) {
  if (selected) return <ThreadDetail key={selected} threadId={selected} />;
  return <ThreadList />;
}

function ThreadList() {
  const { data, error } = usePolling(() => api.threads(), 3000, []);
  return (
    <section className="page">
      <h1>Threads</h1>
      {error && <p className="error">{error}</p>}
      {data?.threads.length === 0 && <p className="muted">No threads yet: POST /v1/threads makes one, and runs on it share a state.</p>}
      {data && data.threads.length > 0 && (
        <table className="grid" data-testid="threads-table">
          <thead>
            <tr>
              <th>thread</th>
              <th>status</th>
              <th>runs</th>
              <th>state from</th>
              <th>created</th>
            </tr>
          </thead>
          <tbody>
            {data.threads.map((t) => (
              <tr key={t.threadId} data-thread-id={t.threadId} className="clickable" onClick={() => navigate(`/threads/${t.threadId}`)}>
                <td>
                  <a href={`#/threads/${t.threadId}`}>{t.threadId}</a>
                </td>
                <td>
                  <span className={`status ${t.status === 'busy' ? 'running' : 'completed'}`}>{t.status}</span>
                </td>
                <td>{t.runs}</td>
                <td>{t.stateFromRun ?? '–'}</td>
                <td title={dateTime(t.createdAt)}>{relativeTime(t.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function ThreadDetail({ threadId }: { threadId: string }) {
  const { data, error } = usePolling(() => api.thread(threadId), 2000, [threadId]);
  return (
    <section className="page" data-testid="thread-page">
      <p>
        <a href="#/threads">← Threads</a>
      </p>
      <h1>
        Thread <CopyId id={threadId} what="thread" />
      </h1>
      {error && <p className="error">{error}</p>}
      {data && (
        <>
          <p>
            <span className={`status ${data.thread.status === 'busy' ? 'running' : 'completed'}`}>{data.thread.status}</span> ·{' '}
            {data.thread.runs} run(s) · created {dateTime(data.thread.createdAt)} by {threadCreator(data.thread)}
          </p>
          <h2>Runs</h2>
          {data.runs.length === 0 ? (
            <p className="muted">No runs yet: POST /v1/threads/{threadId}/runs starts one from the thread&apos;s state.</p>
          ) : (
            <table className="grid" data-testid="thread-runs">
              <thead>
                <tr>
                  <th>#</th>
                  <th>run</th>
                  <th>workflow</th>
                  <th>status</th>
                  <th>on a busy thread</th>
                  <th>queued</th>
                </tr>
              </thead>
              <tbody>
                {data.runs.map((r) => {
                  const badge = threadRunBadge(r.status);
                  return (
                    <tr key={r.runId} data-run-id={r.runId}>
                      <td>{r.position}</td>
                      <td>
                        <a href={`#/runs/${r.runId}`}>{r.runId}</a>
                      </td>
                      <td>{r.workflow}</td>
                      <td>
                        <span className={`status ${badge.tone}`}>{badge.label}</span>
                      </td>
                      <td>{r.multitaskStrategy}</td>
                      <td>{dateTime(r.queuedAt)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          {data.runs.length > 0 && (
            <>
              <h2>Forks</h2>
              <ThreadForks runIds={data.runs.map((r) => r.runId)} />
            </>
          )}
          <h2>State</h2>
          <p className="muted">
            {data.state.stateFromRun ? (
              <>
                The end state of <a href={`#/runs/${data.state.stateFromRun}`}>{data.state.stateFromRun}</a>: the next run starts from it.
              </>
            ) : (
              'No run has completed yet: the next run starts from an empty state.'
            )}
          </p>
          <div data-testid="thread-state">
            <JsonTree value={data.state.state} />
          </div>
        </>
      )}
    </section>
  );
}
