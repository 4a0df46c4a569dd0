import type { HumanRequest } from '@spindle/contracts';
import { useMemo, useState } from 'react';
import { isSpindleApiError } from '@spindle/client';
import { api } from '../api/client';
import { formFieldsOf, type FormField } from '@spindle/projections';
import { checkJsonAnswer } from '../model/json-answer';
import { fieldText, withFieldValue } from '../model/json-form';
import { json } from './format';
import { ModeToggle } from './ModeToggle';

/** Answers one request with the form it asks for; a refusal shows the field at fault. */
export function RequestForm({ request, onAnswered }: { request: HumanRequest; onAnswered?: (summary: string) => void }) {
  const [text, setText] = useState('');
  const [data, setData] = useState('{}');
  const [message, setMessage] = useState('');
  const [problem, setProblem] = useState<string>();
  const [done, setDone] = useState(false);
  // A JSON answer whose schema is an object of plain fields is asked with a form; the raw editor stays one click away.
  const fields = useMemo(() => (request.form?.kind === 'json' ? formFieldsOf(request.form.schema) : undefined), [request.form]);
  const [raw, setRaw] = useState(false);
  const dataCheck = useMemo(
    () => (request.form?.kind === 'json' ? checkJsonAnswer(data, request.form.schema) : undefined),
    [data, request.form],
  );
  const send = async (body: Record<string, unknown>) => {
    setProblem(undefined);
    try {
      await api.respond(request.runId, request.requestId, body);
      setDone(true);
      onAnswered?.(summaryOf(body));
    } catch (e) {
      setProblem(
        isSpindleApiError(e)
          ? `${e.code}: ${e.errors.map((f) => `${f.field}: ${f.message}`).join('; ') || e.detail}`
          : (e as Error).message,
      );
    }
  };
  if (done) return <p className="muted">answered</p>;
  const kind = request.kind === 'approval' ? 'approval' : request.form?.kind;
  return (
    <div className="request-form" data-request-id={request.requestId} data-kind={kind}>
      <p className="prompt">{request.prompt}</p>
      {kind === 'approval' && request.call && (
        <>
          <pre>
            {request.call.name}({json(request.call.arguments)})
          </pre>
          <input
            placeholder="message to the agent (optional)"
            value={message}
            onChange={(e) => setMessage(e.target.value)}
            aria-label="message"
          />
          <div className="buttons">
            <button
              onClick={() =>
                void send({
                  decision: 'approve',
                  callId: request.call!.callId,
                  name: request.call!.name,
                  argumentsHash: request.call!.argumentsHash,
                })
              }
            >
              Approve
            </button>
            <button
              className="danger"
              onClick={() =>
                void send({
                  decision: 'reject',
                  callId: request.call!.callId,
                  name: request.call!.name,
                  argumentsHash: request.call!.argumentsHash,
                  ...(message ? { message } : {}),
                })
              }
            >
              Reject
            </button>
          </div>
        </>
      )}
      {kind === 'boolean' && (
        <div className="buttons">
          <button onClick={() => void send({ approved: true })}>Yes</button>
          <button className="danger" onClick={() => void send({ approved: false })}>
            No
          </button>
        </div>
      )}
      {kind === 'text' && (
        <>
          <textarea value={text} onChange={(e) => setText(e.target.value)} rows={3} aria-label="answer" />
          <button onClick={() => void send({ text })}>Send</button>
        </>
      )}
      {kind === 'json' && (
        <>
          {fields && (
            <ModeToggle
              label="answer with"
              className="graph-modes inline-modes"
              modes={[
                ['form', 'form'],
                ['json', 'JSON'],
              ]}
              value={raw ? 'json' : 'form'}
              onChange={(mode) => setRaw(mode === 'json')}
            />
          )}
          {fields && !raw ? (
            <SchemaForm fields={fields} text={data} onChange={setData} />
          ) : (
            <>
              {request.form?.schema && <pre className="muted">{json(request.form.schema)}</pre>}
              <textarea
                value={data}
                onChange={(e) => setData(e.target.value)}
                rows={4}
                aria-label="answer data"
                aria-invalid={dataCheck?.ok === false}
              />
            </>
          )}
          {dataCheck?.ok === false && (
            <ul className="error field-problems" data-testid="data-problems">
              {dataCheck.problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          )}
          <button disabled={!dataCheck?.ok} onClick={() => dataCheck?.ok && void send({ data: dataCheck.data })}>
            Send
          </button>
        </>
      )}
      {kind === 'plan_review' && (
        <>
          <pre>{json(request.form?.plan)}</pre>
          <textarea
            placeholder="revision (to reject)"
            value={text}
            onChange={(e) => setText(e.target.value)}
            rows={3}
            aria-label="revision"
          />
          <div className="buttons">
            <button onClick={() => void send({ approved: true })}>Approve plan</button>
            <button className="danger" onClick={() => void send({ approved: false, text })}>
              Request revision
            </button>
          </div>
        </>
      )}
      {problem && <p className="error">{problem}</p>}
    </div>
  );
}

/** A JSON answer's fields as form controls, writing the same JSON the raw editor shows. */
function SchemaForm({ fields, text, onChange }: { fields: FormField[]; text: string; onChange: (text: string) => void }) {
  return (
    <div className="schema-form">
      {fields.map((field) => {
        const label = `${field.title ?? field.name}${field.required ? ' *' : ''}`;
        return (
          <label key={field.name} title={field.description}>
            <span>{label}</span>
            {field.type === 'boolean' ? (
              <input
                type="checkbox"
                checked={fieldText(text, field) === 'true'}
                onChange={(e) => onChange(withFieldValue(text, field, e.target.checked))}
                aria-label={field.name}
              />
            ) : field.options ? (
              <select
                value={fieldText(text, field)}
                onChange={(e) => onChange(withFieldValue(text, field, e.target.value))}
                aria-label={field.name}
              >
                <option value="">–</option>
                {field.options.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            ) : (
              <input
                type={field.type === 'string' ? 'text' : 'number'}
                step={field.type === 'integer' ? 1 : 'any'}
                value={fieldText(text, field)}
                onChange={(e) => onChange(withFieldValue(text, field, e.target.value))}
                aria-label={field.name}
              />
            )}
            {field.description && <small className="muted">{field.description}</small>}
          </label>
        );
      })}
    </div>
  );
}

/** What an answer said, in a few words, for the inbox's confirmation. */
function summaryOf(body: Record<string, unknown>): string {
  if (body.decision === 'approve') return 'approved the call';
  if (body.decision === 'reject') return 'rejected the call';
  if (body.approved === true) return 'answered yes';
  if (body.approved === false) return body.text ? 'asked for a revision' : 'answered no';
  if (typeof body.text === 'string') return `answered “${body.text.length > 60 ? `${body.text.slice(0, 60)}…` : body.text}”`;
  return `answered ${JSON.stringify(body.data)}`.slice(0, 80);
}
