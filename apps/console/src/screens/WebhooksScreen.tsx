import { webhookScope } from '@spindle/contracts';
import { api } from '../api/client';
import { CopyId } from '../components/CopyId';
import { dateTime, ms } from '../components/format';
import { usePolling } from '../components/usePolling';
import { deliveryRows } from '../model/control-views';

/** Webhooks: subscriptions to run events, and one's deliveries with every attempt, its answer or error. */
export function WebhooksScreen({ selected }: { selected?: string }) {
  const { data, error } = usePolling(() => api.webhooks(), 3000, []);
  return (
    <section className="page split">
      <aside className="list">
        <h1>Webhooks</h1>
        {error && <p className="error">{error}</p>}
        {data?.webhooks.length === 0 && (
          <p className="muted">
            None yet. Try one locally: <code>npx spindle webhooks listen</code>
          </p>
        )}
        <ul data-testid="webhooks-list">
          {data?.webhooks.map((w) => (
            <li key={w.webhookId} className={w.webhookId === selected ? 'active' : ''}>
              <a href={`#/webhooks/${w.webhookId}`}>{w.url}</a>
              <div className="muted">
                {w.events.join(', ')} · {webhookScope(w)}
              </div>
            </li>
          ))}
        </ul>
      </aside>
      {selected ? (
        <WebhookDeliveries key={selected} webhookId={selected} />
      ) : (
        <p className="muted">Pick a webhook to see its deliveries.</p>
      )}
    </section>
  );
}

function WebhookDeliveries({ webhookId }: { webhookId: string }) {
  const { data, error } = usePolling(() => api.webhookDeliveries(webhookId), 2000, [webhookId]);
  return (
    <div className="detail" data-testid="webhook-page">
      <h2>
        Webhook <CopyId id={webhookId} what="webhook" />
      </h2>
      {error && <p className="error">{error}</p>}
      {data && (
        <>
          <p>
            POSTs {data.webhook.events.join(', ')} of {webhookScope(data.webhook)} to <code>{data.webhook.url}</code>, signed with the
            secret shown when it was made (<code>Spindle-Signature</code>).
          </p>
          <h3>Deliveries</h3>
          {data.deliveries.length === 0 && <p className="muted">No deliveries yet.</p>}
          {deliveryRows(data.deliveries).map((d) => (
            <article key={d.deliveryId} className="card" data-testid="delivery" data-delivery-id={d.deliveryId}>
              <header>
                <span className={`status ${d.tone}`}>{d.status}</span> <b>{d.eventType}</b> · run{' '}
                <a href={`#/runs/${d.runId}`}>{d.runId}</a> · {d.summary}
                {d.nextAttemptAt && <span className="muted"> · next attempt {dateTime(d.nextAttemptAt)}</span>}
              </header>
              {d.lastProblem && <p className="error">{d.lastProblem}</p>}
              {d.attempts.length > 0 && (
                <table className="grid" data-testid="delivery-attempts">
                  <thead>
                    <tr>
                      <th>attempt</th>
                      <th>at</th>
                      <th>answer</th>
                      <th>error</th>
                      <th>took</th>
                      <th>response</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.attempts.map((a) => (
                      <tr key={a.attempt}>
                        <td>{a.attempt}</td>
                        <td>{dateTime(a.at)}</td>
                        <td>
                          <span className={`status ${a.ok ? 'completed' : 'failed'}`}>{a.answer}</span>
                        </td>
                        <td>{a.error ?? ''}</td>
                        <td>{ms(a.durationMs)}</td>
                        <td>
                          <code>{a.response?.slice(0, 120) ?? ''}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </article>
          ))}
        </>
      )}
    </div>
  );
}
