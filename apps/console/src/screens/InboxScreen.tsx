import type { HumanRequest } from '@spindle/contracts';
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { ms, time } from '../components/format';
import { RequestForm } from '../components/RequestForm';
import { usePolling } from '../components/usePolling';

/** Pending inputs and approvals across runs, oldest first, answered here. */
export function InboxScreen() {
  const { data, error, reload } = usePolling(() => api.inbox(), 2000, []);
  // An answered request stays a moment as a confirmation of what was sent, then goes.
  const [answered, setAnswered] = useState<Array<{ request: HumanRequest; summary: string }>>([]);
  useEffect(() => {
    if (answered.length === 0) return;
    const timer = setTimeout(() => setAnswered((list) => list.slice(1)), 8_000);
    return () => clearTimeout(timer);
  }, [answered]);
  const pending = data?.requests.filter((r) => !answered.some((a) => a.request.requestId === r.requestId));
  return (
    <section className="page">
      <h1>Inbox</h1>
      {error && <p className="error">{error}</p>}
      {answered.map(({ request, summary }) => (
        <div key={request.requestId} className="answered-note" role="status" data-testid="answered-note">
          ✓ You {summary} for {request.workflow} · node {request.nodeId} · <a href={`#/runs/${request.runId}`}>the run</a> goes on.
          <button className="link" onClick={() => setAnswered((list) => list.filter((a) => a.request.requestId !== request.requestId))}>
            dismiss
          </button>
        </div>
      ))}
      {pending?.length === 0 && answered.length === 0 && <p className="muted">Nothing is waiting for a person.</p>}
      <div className="inbox" data-testid="inbox">
        {pending?.map((r) => (
          <article key={r.requestId} className="card">
            <header>
              <b>{r.kind === 'approval' ? 'tool approval' : 'input'}</b> · {r.workflow} · node {r.nodeId} ·{' '}
              <a href={`#/runs/${r.runId}`} title={r.runId}>
                {r.workflow} run <code>{r.runId}</code>
              </a>{' '}
              · waiting {ms(r.ageMs)}
              {r.expiresAt && (
                <>
                  {' '}
                  · <span className="muted">expires {time(r.expiresAt)}</span>
                </>
              )}
            </header>
            <RequestForm
              request={r}
              onAnswered={(summary) => {
                setAnswered((list) => [...list, { request: r, summary }]);
                reload();
              }}
            />
          </article>
        ))}
      </div>
    </section>
  );
}
