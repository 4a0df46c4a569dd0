import { useState } from 'react';
import { spanTimes, type RunView, type SpanView } from '../model/run-view';
import { cost, json, ms, tokenSplit } from './format';
import { addCallUsage, EMPTY_USAGE, type RunEvent, type Usage } from '@spindle/contracts';
import { ConversationView } from './ConversationView';
import { budgetFacts, compactionSummary } from '../model/context-spans';
import { RetrievalView } from './RetrievalView';
import { catalogAgentOf } from '../model/agent-pins';
import { saidLine, userCodeFacts, userCodeSaid } from '../model/user-code-spans';
/** The selected span: what it received, the delta it wrote, its calls, and earlier executions to compare. */
export function DetailPane({
  view,
  events,
  spanKey,
  streamed,
  now,
}: {
  view: RunView;
  /** The events the view was derived from (the replay's slice): a model span's conversation is read from them. */
  events: readonly RunEvent[];
  spanKey?: string;
  streamed: ReadonlyMap<string, string>;
  /** The live clock while the run goes (absent at a replay cursor): an open span's time runs on to it. */
  now?: number;
}) {
  const span = spanKey ? view.byKey.get(spanKey) : undefined;
  const [compareWith, setCompareWith] = useState<string>();
  if (!span) return <div className="detail-pane muted">Select a span on the timeline or a node on the graph.</div>;
  const siblings = span.kind === 'node' ? view.spans.filter((s) => s.kind === 'node' && s.nodeId === span.nodeId) : [];
  const other = compareWith ? view.byKey.get(compareWith) : undefined;
  return (
    <div className="detail-pane" data-testid="span-detail">
      {siblings.length > 1 && (
        <div className="compare">
          compare with{' '}
          <select
            value={compareWith ?? ''}
            onChange={(e) => setCompareWith(e.target.value || undefined)}
            aria-label="compare with execution"
          >
            <option value="">–</option>
            {siblings
              .filter((s) => s.key !== span.key)
              .map((s) => (
                <option key={s.key} value={s.key}>
                  execution #{s.execution}
                </option>
              ))}
          </select>
        </div>
      )}
      <div className={other ? 'side-by-side' : ''}>
        <SpanCard span={span} view={view} events={events} streamed={streamed} now={now} />
        {other && <SpanCard span={other} view={view} events={events} streamed={streamed} now={now} />}
      </div>
    </div>
  );
}

function SpanCard(props: {
  span: SpanView;
  view: RunView;
  events: readonly RunEvent[];
  streamed: ReadonlyMap<string, string>;
  now?: number;
}) {
  const { span, view, events, streamed } = props;
  const { durationMs, selfMs } = spanTimes(span, view, props.now);
  const children = span.children.map((k) => view.byKey.get(k)).filter((c): c is SpanView => c !== undefined);
  const tools = children.filter((c) => c.kind === 'tool');
  const models = children.filter((c) => c.kind === 'model');
  const said = span.kind === 'node' || span.kind === 'tool' ? userCodeSaid(span, view) : [];
  // A node's totals: its model calls and what its code (or its tools' code) reported spending.
  const usage = span.usage ?? sumUsage([...models, ...said.filter((s) => s.kind === 'usage')]);
  const text = streamed.get(span.spanId);
  const facts = budgetFacts(span) ?? userCodeFacts(span);
  const summary = compactionSummary(span);
  const agent = catalogAgentOf(span);
  return (
    <div className="span-card">
      <h3>
        <span className={`kind ${span.kind}`}>{span.kind}</span> {span.label} <span className={`status ${span.status}`}>{span.status}</span>
      </h3>
      <dl>
        {span.nodeType && (
          <>
            <dt>type</dt>
            <dd>{span.nodeType}</dd>
          </>
        )}
        {span.nodeId && (
          <>
            <dt>node</dt>
            <dd>
              {span.nodeId}
              {span.execution > 1 ? ` (execution #${span.execution})` : ''}
            </dd>
          </>
        )}
        <dt>path</dt>
        <dd className="mono">{span.path}</dd>
        {span.iteration !== undefined && (
          <>
            <dt>iteration</dt>
            <dd>{span.iteration}</dd>
          </>
        )}
        {span.branchId && (
          <>
            <dt>branch</dt>
            <dd>{span.branchId}</dd>
          </>
        )}
        <dt>duration</dt>
        <dd>
          wall {ms(durationMs)} <span className="muted">(own time {ms(selfMs)})</span>
        </dd>
        {agent && (
          <>
            <dt>agent</dt>
            <dd data-testid="catalog-agent">{agent}</dd>
          </>
        )}
        {/* A model span's model, tokens and cost are in its conversation's facts. */}
        {span.model && span.kind !== 'model' && (
          <>
            <dt>model</dt>
            <dd>{span.model}</dd>
          </>
        )}
        {usage && span.kind !== 'model' && (
          <>
            <dt>tokens</dt>
            <dd>{tokenSplit(usage)}</dd>
            <dt>cost</dt>
            <dd>{cost(usage)}</dd>
          </>
        )}
        <dt>seq</dt>
        <dd>
          {span.startSeq}–{span.endSeq ?? '…'}
        </dd>
      </dl>
      {span.error && (
        <pre className="error-box">
          {span.error.code}: {span.error.message}
        </pre>
      )}
      {text !== undefined && span.status === 'running' && (
        <>
          <h4>streaming</h4>
          <pre className="streamed">{text}</pre>
        </>
      )}
      {facts && (
        <dl data-testid="budget-facts">
          {facts.map(([label, value]) => (
            <Fact key={label} label={label} value={value} />
          ))}
        </dl>
      )}
      {summary !== undefined && (
        <>
          <h4>summary</h4>
          <pre data-testid="compaction-summary">{summary}</pre>
        </>
      )}
      {span.kind === 'custom' && (
        <>
          <h4>data</h4>
          <pre data-testid="custom-data">{json(span.output)}</pre>
        </>
      )}
      {said.length > 0 && (
        <>
          <h4>what the code said</h4>
          <ul className="said" data-testid="user-code-said">
            {said.map((s) => (
              <li key={s.key} className={`said ${s.kind}`} data-kind={s.kind}>
                {saidLine(s)}
                {s.kind === 'custom' && <pre>{json(s.output)}</pre>}
              </li>
            ))}
          </ul>
        </>
      )}
      {span.kind === 'model' ? (
        <ConversationView events={events} spanId={span.spanId} />
      ) : span.kind === 'retrieval' ? (
        <RetrievalView span={span} />
      ) : facts ? null : (
        <>
          <h4>input</h4>
          <pre>{json(span.input)}</pre>
          <h4>{span.kind === 'node' ? 'output (state delta)' : 'output'}</h4>
          {span.status === 'running' || span.status === 'waiting' ? (
            <p className="muted">not finished at this point</p>
          ) : (
            <pre>{json(span.output)}</pre>
          )}
        </>
      )}
      {tools.length > 0 && (
        <>
          <h4>tool calls</h4>
          {tools.map((t) => (
            <div key={t.key} className={`tool-call ${t.status}`} data-status={t.status}>
              <b>{t.label}</b> <span className={`status ${t.status}`}>{t.status}</span>
              <pre>{json(t.input)}</pre>
              <pre>{t.error ? `${t.error.code}: ${t.error.message}` : json(t.output)}</pre>
            </div>
          ))}
        </>
      )}
    </div>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </>
  );
}

function sumUsage(spans: SpanView[]): Usage | undefined {
  const models = spans.flatMap((m) => m.usage ?? []);
  if (models.length === 0) return undefined;
  return models.reduce(addCallUsage, EMPTY_USAGE);
}
