import { type ForkPoint, type RunSort, actorLabel, forkOriginText } from '@spindle/contracts';
import { useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import { CopyId } from '../components/CopyId';
import { cost, dateTime, ms, relativeTime } from '../components/format';
import { usePolling } from '../components/usePolling';
import { atPage, fromLocalInput, readRunsFilter, sortedBy, toLocalInput, withFilter, type RunsFilterKey } from '../model/runs-filter';
import { navigate } from '../router';

const STATUSES = ['', 'queued', 'running', 'awaiting_input', 'awaiting_approval', 'completed', 'failed', 'canceled'];

/**
 * Runs as the trace projection finds them: searched, filtered and sorted by the gateway (never
 * here), a page at a time, refreshed every two seconds. Every filter lives in the URL.
 */
export function RunsScreen({ query }: { query: URLSearchParams }) {
  const filter = readRunsFilter(query);
  const key = query.toString();
  const { data, error } = usePolling(() => api.runs(filter), 2000, [key]);
  // The cursors of the pages before this one, to go back a page (a deep link starts afresh).
  const earlier = useRef<string[]>([]);
  const show = (next: URLSearchParams) => navigate(`/runs${next.size ? `?${next}` : ''}`, true);
  const setFilter = (name: Exclude<RunsFilterKey, 'cursor'>, value: string) => {
    earlier.current = [];
    show(withFilter(query, name, value));
  };
  const sortBy = (column: RunSort) => {
    earlier.current = [];
    show(sortedBy(query, column));
  };
  const older = () => {
    if (!data?.nextCursor) return;
    earlier.current.push(filter.cursor ?? '');
    show(atPage(query, data.nextCursor));
  };
  const newer = () => show(atPage(query, earlier.current.pop() || undefined));
  const header = (label: string, column: RunSort) => (
    <th aria-sort={filter.sort === column ? (filter.order === 'desc' ? 'descending' : 'ascending') : 'none'}>
      <button type="button" className="sort" onClick={() => sortBy(column)}>
        {label}
        {filter.sort === column ? (filter.order === 'desc' ? ' ↓' : ' ↑') : ''}
      </button>
    </th>
  );
  return (
    <section className="page">
      <h1>Runs</h1>
      <div className="filters">
        <SearchBox value={filter.q ?? ''} onSearch={(q) => setFilter('q', q)} />
        <input
          placeholder="workflow"
          value={filter.workflow ?? ''}
          onChange={(e) => setFilter('workflow', e.target.value)}
          aria-label="filter by workflow"
        />
        <select value={filter.status ?? ''} onChange={(e) => setFilter('status', e.target.value)} aria-label="filter by status">
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s || 'any status'}
            </option>
          ))}
        </select>
        <input
          placeholder="error code"
          value={filter.errorCode ?? ''}
          onChange={(e) => setFilter('errorCode', e.target.value.trim())}
          aria-label="filter by error code"
        />
        <input
          placeholder="parameter=value"
          value={filter.parameter ?? ''}
          onChange={(e) => setFilter('parameter', e.target.value)}
          aria-label="filter by parameter"
        />
        <input
          placeholder="score, e.g. helpfulness>=0.8"
          value={filter.score ?? ''}
          onChange={(e) => setFilter('score', e.target.value.trim())}
          aria-label="filter by score"
        />
        {filter.score && (
          <button type="button" onClick={() => sortBy('score')} aria-pressed={filter.sort === 'score'}>
            by score{filter.sort === 'score' ? (filter.order === 'desc' ? ' ↓' : ' ↑') : ''}
          </button>
        )}
        <TimeFilter label="from" aria="queued from" value={filter.from} onChange={(v) => setFilter('from', v)} />
        <TimeFilter label="to" aria="queued before" value={filter.to} onChange={(v) => setFilter('to', v)} />
        <label className="inline" title="a thread's state changes are recorded as runs of the internal workflow _thread_state">
          <input
            type="checkbox"
            checked={filter.internal === 'include'}
            onChange={(e) => setFilter('internal', e.target.checked ? 'include' : '')}
            aria-label="include internal runs"
          />{' '}
          internal runs
        </label>
        {key && (
          <button type="button" onClick={() => ((earlier.current = []), navigate('/runs', true))}>
            Clear
          </button>
        )}
      </div>
      {error && <p className="error">{error}</p>}
      <div className="table-scroll">
        <table className="grid runs-grid" data-testid="runs-table">
          <thead>
            <tr>
              <th>run</th>
              <th>workflow</th>
              <th>status</th>
              <th className="roomy-only">parent</th>
              {header('started', 'started')}
              <th className="wide-only">by</th>
              {header('wall', 'duration')}
              <th className="wide-only">working</th>
              {header('tokens', 'tokens')}
              {header('cost', 'cost')}
              <th className="roomy-only">error</th>
            </tr>
          </thead>
          <tbody>
            {data?.runs.map((r) => (
              <tr key={r.runId} data-run-id={r.runId} onClick={() => navigate(`/runs/${r.runId}`)} className="clickable">
                <td>
                  <CopyId id={r.runId} />
                  {r.forkedFrom && (
                    <div className="stacked muted" data-testid="run-parent-stacked">
                      from <ParentLink forkedFrom={r.forkedFrom} />
                    </div>
                  )}
                </td>
                <td>
                  {r.workflow.name} <span className="muted">v{r.workflow.version}</span>
                </td>
                <td>
                  <span className={`status ${r.status}`}>{r.status}</span>
                  {r.status === 'failed' && r.error && (
                    <div className="stacked mono error" data-testid="run-error-stacked">
                      {r.error.code}
                    </div>
                  )}
                  {r.logLost && (
                    <span
                      className="muted"
                      data-testid="log-lost"
                      title="its log went with a lost JetStream store: this row is all that is left"
                    >
                      {' '}
                      · log lost
                    </span>
                  )}
                </td>
                <td className="parent roomy-only" data-testid="run-parent">
                  {r.forkedFrom && <ParentLink forkedFrom={r.forkedFrom} />}
                </td>
                <td className="when" title={`${r.startedAt ?? r.queuedAt} (${relativeTime(r.startedAt ?? r.queuedAt)})`}>
                  {dateTime(r.startedAt ?? r.queuedAt)} <span className="muted wide-only">{relativeTime(r.startedAt ?? r.queuedAt)}</span>
                </td>
                <td className="wide-only">{actorLabel(r.startedBy)}</td>
                <td className="figure" title={`wall ${ms(r.wallMs)} · working ${ms(r.workingMs)} (less the waits for a person)`}>
                  {ms(r.wallMs)}
                </td>
                <td className="figure wide-only">{ms(r.workingMs)}</td>
                <td className="figure">{r.usage.totalTokens}</td>
                <td className="figure">{cost(r.usage)}</td>
                <td className="mono roomy-only">{r.status === 'failed' ? r.error?.code : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {data && data.runs.length === 0 && <p className="muted empty">No run matches.</p>}
      <nav className="pager" aria-label="pages">
        <button type="button" onClick={newer} disabled={!filter.cursor}>
          ← Newer
        </button>
        <span className="muted" data-testid="page-number">
          page {filter.cursor ? earlier.current.length + 1 : 1}
        </span>
        <button type="button" onClick={older} disabled={!data?.nextCursor}>
          Older →
        </button>
      </nav>
    </section>
  );
}

/**
 * The fork's parent, linked (clicking it never opens the row). Below 1400 px it is stacked under the run id, as a
 * failure's code is under the status, so every column stays in view (down to 820 px) instead of scrolling sideways.
 */
function ParentLink({ forkedFrom }: { forkedFrom: ForkPoint }) {
  return (
    <a
      className="mono"
      href={`#/runs/${forkedFrom.runId}`}
      title={`forked from ${forkedFrom.runId} at ${forkOriginText(forkedFrom).at}`}
      onClick={(e) => e.stopPropagation()}
    >
      {forkedFrom.runId}
    </a>
  );
}

/** One end of the time window, in the browser's zone. */
function TimeFilter(props: { label: string; aria: string; value: string | undefined; onChange: (iso: string) => void }) {
  return (
    <label className="inline">
      {props.label}
      <input
        type="datetime-local"
        value={toLocalInput(props.value)}
        onChange={(e) => props.onChange(fromLocalInput(e.target.value))}
        aria-label={props.aria}
      />
    </label>
  );
}

/** The search field: searches on Enter or once typing pauses; `/` anywhere on the page focuses it. */
function SearchBox({ value, onSearch }: { value: string; onSearch: (q: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => onSearch(text.trim()), 400);
    return () => clearTimeout(timer);
  }, [text]);
  return (
    <input
      id="search"
      type="search"
      className="search"
      placeholder="Search runs: words in inputs and outputs, or a run id   ( / )"
      value={text}
      onChange={(e) => setText(e.target.value)}
      onKeyDown={(e) => e.key === 'Enter' && onSearch(text.trim())}
      aria-label="search runs"
    />
  );
}
