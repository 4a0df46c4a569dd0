import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { apiReference, type OutlineRow, type ReferenceOperation, type ReferenceTag } from '../model/api-reference';

/**
 * The HTTP API as `/v1/openapi.json` describes it: tags, operations, parameters, bodies, answers
 * and the scope each needs. The document is public and static (built once per gateway start), so
 * it is read once, without credentials.
 */
export function ApiReference() {
  const [tags, setTags] = useState<ReferenceTag[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    api
      .openapi()
      .then(apiReference)
      .then(
        (t) => live && setTags(t),
        (e: Error) => live && setError(e.message),
      );
    return () => {
      live = false;
    };
  }, []);
  return (
    <section className="page api-reference" data-testid="api-reference">
      <h1>API reference</h1>
      <p className="muted">
        From <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1). Every refusal is <code>application/problem+json</code>.
      </p>
      {error && <p className="error">{error}</p>}
      {!tags && !error && <p className="muted">Loading…</p>}
      {tags?.map((tag) => (
        <section key={tag.name}>
          <h2>{tag.name}</h2>
          {tag.operations.map((op) => (
            <OperationCard key={op.operationId} op={op} />
          ))}
        </section>
      ))}
    </section>
  );
}

function OperationCard({ op }: { op: ReferenceOperation }) {
  return (
    <details className="card" data-testid={`operation-${op.operationId}`}>
      <summary>
        <code>
          {op.method} {op.path}
        </code>{' '}
        {op.summary} <span className="muted">· {op.access}</span>
      </summary>
      {op.description && <p>{op.description}</p>}
      {op.parameters.length > 0 && (
        <table className="grid">
          <thead>
            <tr>
              <th>parameter</th>
              <th>in</th>
              <th>type</th>
              <th>required</th>
            </tr>
          </thead>
          <tbody>
            {op.parameters.map((p) => (
              <tr key={`${p.in}:${p.name}`}>
                <td>
                  <code>{p.name}</code>
                </td>
                <td>{p.in}</td>
                <td>{p.type}</td>
                <td>{p.required ? 'yes' : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {op.body && <Fields title={`request body · ${op.body.schemaName ?? 'JSON'}`} rows={op.body.outline} />}
      {op.responses.map((r) => (
        <div key={r.status}>
          <h4>
            {r.status} · {r.description} <span className="muted">{r.contentTypes.join(', ')}</span>
          </h4>
          {r.outline.length > 0 && <Fields title={r.schemaName ?? 'body'} rows={r.outline} />}
          {r.events.length > 0 && (
            <p>
              events:{' '}
              {r.events.map((e) => (
                <code key={e.event} title={e.schemaName}>
                  {e.event}{' '}
                </code>
              ))}
            </p>
          )}
        </div>
      ))}
    </details>
  );
}

function Fields({ title, rows }: { title: string; rows: OutlineRow[] }) {
  return (
    <table className="grid">
      <thead>
        <tr>
          <th colSpan={3}>{title}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.path}>
            <td style={{ paddingLeft: 6 + row.depth * 14 }}>
              <code>{row.path.split('.').pop()}</code>
              {row.required ? '' : '?'}
            </td>
            <td>{row.type}</td>
            <td className="muted">{row.description ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
