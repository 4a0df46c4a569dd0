import type { RunEvent } from '@spindle/contracts';
import { useMemo, useState } from 'react';
import { api } from '../api/client';
import { checkForkEdit, forkPointAt } from '../model/fork-point';
import { navigate } from '../router';

/**
 * "Fork from here": a new run from the last checkpoint at or before the replay cursor, its state
 * shown in an editor checked against that state as one types; the fork starts through the API
 * and opens.
 */
export function ForkPanel({ runId, events, cursor, onClose }: { runId: string; events: RunEvent[]; cursor: number; onClose: () => void }) {
  const point = useMemo(() => forkPointAt(events, cursor), [events, cursor]);
  const initial = useMemo(() => JSON.stringify(point?.state ?? {}, null, 2), [point]);
  const [text, setText] = useState(initial);
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  if (!point)
    return (
      <div className="fork-panel" data-testid="fork-panel">
        <p className="muted">No checkpoint at or before event {cursor}: nothing to fork from yet.</p>
        <button onClick={onClose}>Close</button>
      </div>
    );
  const edit = checkForkEdit(point.state, text);
  const changed = edit.ok ? Object.keys(edit.changes) : [];
  const fork = async () => {
    if (!edit.ok) return;
    setBusy(true);
    try {
      const forked = await api.fork(runId, { checkpointId: point.checkpointId, ...(changed.length ? { state: edit.changes } : {}) });
      navigate(`/runs/${forked.runId}`);
    } catch (e) {
      setProblem((e as Error).message);
      setBusy(false);
    }
  };
  return (
    <div className="fork-panel" data-testid="fork-panel">
      <div className="fork-head">
        <b>Fork from checkpoint {point.step}</b>
        <span className="muted">
          (event {point.seq}; runs next: {point.frontier.join(', ') || 'the end'})
        </span>
      </div>
      <textarea
        className="mono state-editor"
        value={text}
        onChange={(e) => setText(e.target.value)}
        spellCheck={false}
        rows={Math.min(18, text.split('\n').length + 1)}
        aria-label="state for the fork"
      />
      <div className="fork-foot">
        {edit.ok ? (
          <span className="muted" data-testid="fork-changes">
            {changed.length ? `changes: ${changed.join(', ')}` : 'the state as it was'}
          </span>
        ) : (
          <span className="error" data-testid="fork-problem">
            {edit.problem}
          </span>
        )}
        {problem && <span className="error">{problem}</span>}
        <button onClick={() => setText(initial)} disabled={text === initial}>
          Reset
        </button>
        <button onClick={onClose}>Close</button>
        <button className="primary" onClick={() => void fork()} disabled={!edit.ok || busy}>
          Fork run
        </button>
      </div>
    </div>
  );
}
