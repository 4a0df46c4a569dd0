import { api } from '../api/client';
import { ms, time } from '../components/format';
import { RequestForm } from '../components/RequestForm';
import { usePolling } from '../components/usePolling';

/** Pending inputs and approvals across runs, oldest first, answered here. */
export function InboxScreen() {
  const { data, error, reload } = usePolling(() => api.inbox(), 2000, []);
  return (
    <section className="page">
      <h1>Inbox</h1>
      {error && <p className="error">{error}</p>}
      {data?.requests.length === 0 && <p className="muted">Nothing is waiting for a person.</p>}
      <div className="inbox" data-testid="inbox">
        {data?.requests.map((r) => (
          <article key={r.requestId} className="card">
            <header>
              <b>{r.kind === 'approval' ? 'tool approval' : 'input'}</b> · {r.workflow} · node {r.nodeId} ·{' '}
              <a href={`#/runs/${r.runId}`}>run {r.runId.slice(-10)}</a> · waiting {ms(r.ageMs)}
              {r.expiresAt && (
                <>
                  {' '}
                  · <span className="muted">expires {time(r.expiresAt)}</span>
                </>
              )}
            </header>
            <RequestForm request={r} onAnswered={reload} />
          </article>
        ))}
      </div>
    </section>
  );
}
