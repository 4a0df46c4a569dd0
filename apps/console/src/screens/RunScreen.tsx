import { runDurations, type HumanRequest, type RunEvent, actorLabel } from '@spindle/contracts';
import { useEffect, useMemo, useState } from 'react';
import { isSpindleApiError, type WorkflowGraph } from '@spindle/client';
import { api } from '../api/client';
import { followRun, type StreamState } from '../api/run-stream';
import { CompareWith } from '../components/CompareWith';
import { DetailPane } from '../components/DetailPane';
import { ForkOrigin } from '../components/ForkOrigin';
import { ForkPanel } from '../components/ForkPanel';
import { ForkTree } from '../components/ForkTree';
import { cost, dateTime, ms } from '../components/format';
import { WorkflowGraphView } from '../components/WorkflowGraphView';
import { ReplayControls } from '../components/ReplayControls';
import { ScorePanel } from '../components/ScorePanel';
import { RequestForm } from '../components/RequestForm';
import { TimelinePane } from '../components/TimelinePane';
import { useNow } from '../components/useNow';
import { parseCursor } from '../model/replay-cursor';
import { deriveRunView, runStatusOf } from '../model/run-view';
import { runningElapsed } from '../model/running-elapsed';
import { navigate } from '../router';
import { NotFound } from './NotFound';

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.canceled']);

/**
 * One run: graph, timeline and span detail, all derived from one slice of the recorded events.
 * Live, the slice is everything received so far; in replay it is a prefix chosen by the cursor
 * (`?at=` in the URL). Replay never calls the backend; only cancel and answers do.
 */
export function RunScreen({ runId, query }: { runId: string; query: URLSearchParams }) {
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [stream, setStream] = useState<StreamState | 'loading'>('loading');
  const [streamed, setStreamed] = useState<Map<string, string>>(new Map());
  const [graph, setGraph] = useState<WorkflowGraph>();
  const [selected, setSelected] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [missing, setMissing] = useState(false);
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const [forking, setForking] = useState(false);

  useEffect(() => {
    let stop: (() => void) | undefined;
    let live = true;
    void api.events(runId).then(
      ({ events: history, lastSeq, terminal }) => {
        if (!live) return;
        setEvents(history);
        if (terminal) return setStream('ended');
        stop = followRun(runId, lastSeq, {
          onEvents: (more) => setEvents((prev) => [...prev, ...more]),
          // The live text is the answer; a model's reasoning is read in the trace once the call ends.
          onToken: (t) =>
            t.part !== 'reasoning' && setStreamed((prev) => new Map(prev).set(t.spanId, (prev.get(t.spanId) ?? '') + t.delta)),
          onState: setStream,
          onError: (e) => setProblem(e.message),
        });
      },
      (e: Error) => (isSpindleApiError(e) && e.status === 404 ? setMissing(true) : setProblem(e.message)),
    );
    return () => {
      live = false;
      stop?.();
    };
  }, [runId]);

  const queued = events[0]?.type === 'run.queued' ? events[0] : undefined;
  useEffect(() => {
    if (queued) void api.graph(queued.data.workflow.name, queued.data.workflow.version).then(setGraph, (e: Error) => setProblem(e.message));
  }, [queued?.runId]);

  const cursor = parseCursor(query.get('at'), events.length);
  const replaying = cursor !== undefined;
  const view = useMemo(() => deriveRunView(events, cursor ?? events.length), [events, cursor]);
  const shown = useMemo(() => (cursor === undefined ? events : events.slice(0, cursor)), [events, cursor]);
  // The run's own status never rolls back with the replay cursor (live, the view already folded every event).
  const status = useMemo(() => (cursor === undefined ? view.status : runStatusOf(events)), [events, cursor, view]);
  const setCursor = (at: number | undefined) => {
    const q = new URLSearchParams(query);
    if (at === undefined) q.delete('at');
    else q.set('at', String(at));
    navigate(`/runs/${runId}${q.size ? `?${q}` : ''}`, true);
  };
  const selectNode = (nodeId: string) => {
    const last = [...view.spans].reverse().find((s) => s.kind === 'node' && s.nodeId === nodeId);
    if (last) setSelected(last.key);
  };

  const canceled = events.findLast((e) => e.type === 'run.canceled');
  const running = events.length > 0 && !TERMINAL.has(events.at(-1)?.type ?? '');
  const now = useNow(1000, running);
  const durations = runDurations(events, now);
  const elapsed = runningElapsed(shown, view.nodes, now);
  const selectedSpan = selected ? view.byKey.get(selected) : undefined;
  const spanLabels = new Map(view.spans.map((s) => [s.spanId, `${s.kind} ${s.label}`]));
  const scoredSpan = selectedSpan && selectedSpan.kind !== 'run' ? { spanId: selectedSpan.spanId, label: selectedSpan.label } : undefined;
  if (missing) return <NotFound what={`No run ${runId} here.`} detail="It never existed, was erased, or belongs to another tenant." />;
  return (
    <section className="run-screen">
      <header className="run-head">
        <h1>
          {queued?.data.workflow.name ?? '…'} <span className="muted">v{queued?.data.workflow.version}</span>{' '}
          <span className="mono muted">{runId}</span>
        </h1>
        <span className={`status ${status}`} data-testid="run-status">
          {status}
        </span>
        <span className={`stream ${stream}`} data-testid="stream-state">
          {stream === 'reconnecting' ? 'reconnecting…' : stream === 'live' ? 'live' : ''}
        </span>
        <span title="wall time: from queued to the end (or now)" data-testid="run-wall">
          wall {ms(durations.wallMs)}
        </span>
        <span title="working time: wall time minus time spent waiting for a person or the queue" data-testid="run-working">
          working {ms(durations.workingMs)}
        </span>
        <span>{view.usage.totalTokens} tokens</span>
        <span>{cost(view.usage)}</span>
        {!TERMINAL.has(events.at(-1)?.type ?? '') && events.length > 0 && !confirmingCancel && (
          <button className="danger" onClick={() => setConfirmingCancel(true)}>
            Cancel run
          </button>
        )}
        {confirmingCancel && !TERMINAL.has(events.at(-1)?.type ?? '') && (
          <CancelConfirm
            onCancel={(reason) => {
              setConfirmingCancel(false);
              void api.cancel(runId, reason).catch((e: Error) => setProblem(e.message));
            }}
            onKeep={() => setConfirmingCancel(false)}
          />
        )}
        {events.length > 0 && !forking && (
          <button onClick={() => setForking(true)} title="A new run from the last checkpoint at or before the replay cursor">
            Fork from {replaying ? `event ${cursor}` : 'here'}
          </button>
        )}
        <CompareWith runId={runId} workflow={queued?.data.workflow.name} forkedFrom={queued?.data.forkedFrom?.runId} />
        <details className="menu">
          <summary>Export</summary>
          <div className="menu-items">
            <button onClick={() => void exportTrace(runId)}>Export trace</button>
            <button onClick={() => download(`${runId}-events.json`, events)}>Export events</button>
          </div>
        </details>
        {problem && <span className="error">{problem}</span>}
      </header>
      {canceled?.type === 'run.canceled' && (
        <div className="canceled-banner" data-testid="canceled-banner">
          Canceled{canceled.data.canceledBy ? ` by ${actorLabel(canceled.data.canceledBy)}` : ''}
          {canceled.data.reason ? `: ${canceled.data.reason}` : ''} <span className="muted">at {dateTime(canceled.at)}</span>
        </div>
      )}
      {queued?.data.forkedFrom && <ForkOrigin runId={runId} forkedFrom={queued.data.forkedFrom} />}
      {queued && <ForkTree runId={runId} reload={forking} />}
      <ReplayControls events={events} cursor={cursor} onCursor={setCursor} />
      {forking && (
        <ForkPanel key={cursor ?? 'end'} runId={runId} events={events} cursor={cursor ?? events.length} onClose={() => setForking(false)} />
      )}
      {replaying && (
        <div className="replay-banner" data-testid="replay-banner">
          replay: event {cursor} of {events.length} — nothing is executed again
        </div>
      )}
      {!replaying && view.requests.length > 0 && <RunRequests runId={runId} seq={events.at(-1)?.seq ?? 0} />}
      <div className="panes">
        <div className="pane graph-pane" data-testid="graph">
          {graph && (
            <WorkflowGraphView
              graph={graph}
              definition={queued?.data.definition}
              overlay={{ nodes: view.nodes, traversed: view.traversed, elapsed }}
              selectedNode={selected ? view.byKey.get(selected)?.nodeId : undefined}
              onSelectNode={selectNode}
            />
          )}
        </div>
        <div className="pane timeline-pane">
          <TimelinePane
            view={view}
            events={events}
            cursor={cursor ?? events.length}
            onCursor={(at) => setCursor(at >= events.length ? undefined : at)}
            selected={selected}
            onSelect={setSelected}
            durations={cursor === undefined ? durations : undefined}
            now={cursor === undefined && running ? now : undefined}
          />
        </div>
        <div className="pane detail">
          <DetailPane
            view={view}
            events={shown}
            spanKey={selected}
            streamed={streamed}
            now={cursor === undefined && running ? now : undefined}
          />
        </div>
      </div>
      {events.length > 0 && (
        <ScorePanel runId={runId} span={scoredSpan} spanLabels={spanLabels} completed={running ? undefined : status === 'completed'} />
      )}
    </section>
  );
}

/** Cancel asks first, and takes a reason the log keeps with who canceled. */
function CancelConfirm({ onCancel, onKeep }: { onCancel: (reason: string | undefined) => void; onKeep: () => void }) {
  const [reason, setReason] = useState('');
  return (
    <span className="confirm" role="group" aria-label="confirm cancel">
      Cancel this run?
      <input placeholder="reason (optional)" value={reason} onChange={(e) => setReason(e.target.value)} aria-label="cancel reason" />
      <button className="danger" onClick={() => onCancel(reason.trim() || undefined)}>
        Yes, cancel it
      </button>
      <button onClick={onKeep}>Keep it running</button>
    </span>
  );
}

/** The run's open requests with their forms, reloaded when the log moves. */
function RunRequests({ runId, seq }: { runId: string; seq: number }) {
  const [requests, setRequests] = useState<HumanRequest[]>([]);
  useEffect(() => {
    void api.runRequests(runId).then(
      (r) => setRequests(r.requests.filter((x) => x.status === 'pending')),
      () => undefined,
    );
  }, [runId, seq]);
  return (
    <div className="run-requests" data-testid="run-requests">
      {requests.map((r) => (
        <RequestForm key={r.requestId} request={r} />
      ))}
    </div>
  );
}

async function exportTrace(runId: string) {
  download(`${runId}-trace.json`, await api.trace(runId));
}

function download(name: string, value: unknown) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2)], { type: 'application/json' }));
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  a.click();
  URL.revokeObjectURL(url);
}
