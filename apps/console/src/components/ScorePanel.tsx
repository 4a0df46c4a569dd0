import type { RunEvaluation, Score } from '@spindle/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { parseScoreInput, scoreGiver, scoreValueText } from '../model/score-input';
import { AddToDataset } from './AddToDataset';
import { dateTime } from './format';

/**
 * The run's scores and a form to give one: to the run, or to the span selected on the timeline.
 * `s` anywhere on the page focuses the name; Enter in any field gives the score.
 */
export function ScorePanel({
  runId,
  span,
  spanLabels,
  completed,
}: {
  runId: string;
  /** The span selected on the timeline: a score can be about it. */
  span?: { spanId: string; label: string };
  /** What each span of the run is called on the timeline, by span id. */
  spanLabels: ReadonlyMap<string, string>;
  /** Whether the run completed (its output can be an item's expected one); undefined while it runs. */
  completed?: boolean;
}) {
  const [scores, setScores] = useState<Score[]>([]);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [comment, setComment] = useState('');
  const [onSpan, setOnSpan] = useState(false);
  const [problem, setProblem] = useState<string>();
  const [evaluations, setEvaluations] = useState<RunEvaluation[]>([]);
  const load = () => {
    void api.scores(runId).then(
      (r) => setScores(r.scores),
      (e: Error) => setProblem(e.message),
    );
    void api.evaluations(runId).then(
      (r) => setEvaluations(r.evaluations),
      (e: Error) => setProblem(e.message),
    );
  };
  useEffect(load, [runId]);

  const give = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseScoreInput(value);
    if (parsed === undefined) return setProblem('a value is a number, yes/no or a short label');
    setProblem(undefined);
    const spanId = onSpan && span ? span.spanId : undefined;
    void api
      .score(runId, { name: name.trim(), value: parsed, ...(comment.trim() && { comment: comment.trim() }), ...(spanId && { spanId }) })
      .then(
        () => {
          setValue('');
          setComment('');
          load();
        },
        (err: Error) => setProblem(err.message),
      );
  };

  return (
    <section className="score-panel" data-testid="scores" aria-label="scores">
      <h2>Scores {completed !== undefined && <AddToDataset runId={runId} completed={completed} />}</h2>
      {scores.length === 0 ? (
        <p className="muted">No score yet. Press s to give one.</p>
      ) : (
        <table>
          <tbody>
            {scores.map((s) => (
              <tr key={s.scoreId} data-testid="score-row">
                <td className="mono">{s.name}</td>
                <td>{scoreValueText(s.value)}</td>
                <td className="muted">{s.spanId ? `on ${spanLabels.get(s.spanId) ?? s.spanId}` : 'on the run'}</td>
                <td>{s.comment ?? ''}</td>
                <td className="muted">
                  {scoreGiver(s)} · {dateTime(s.createdAt)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {evaluations.length > 0 && <EvaluationList evaluations={evaluations} />}
      <form className="score-form" onSubmit={give}>
        <input
          id="score-name"
          aria-label="score name"
          placeholder="name, e.g. helpfulness"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
        />
        <input
          aria-label="score value"
          placeholder="0.8, yes, or a label"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          required
        />
        <input aria-label="score comment" placeholder="why (optional)" value={comment} onChange={(e) => setComment(e.target.value)} />
        {span && (
          <label>
            <input type="checkbox" checked={onSpan} onChange={(e) => setOnSpan(e.target.checked)} /> on {span.label}
          </label>
        )}
        <button type="submit">Give score</button>
        {problem && <span className="error">{problem}</span>}
      </form>
    </section>
  );
}

/** What the run's evaluators made of it: pending, done or failed with why; a judge workflow's run and its cost. */
function EvaluationList({ evaluations }: { evaluations: RunEvaluation[] }) {
  return (
    <table data-testid="evaluations">
      <tbody>
        {evaluations.map((e) => (
          <tr key={e.name} data-testid="evaluation-row" data-status={e.status}>
            <td className="mono">{e.name}</td>
            <td className="muted">{e.type === 'workflow' ? 'judge workflow' : e.type}</td>
            <td>
              <span className={`status ${e.status === 'done' ? 'completed' : e.status === 'failed' ? 'failed' : 'running'}`}>
                {e.status}
              </span>
            </td>
            <td>{e.error ?? ''}</td>
            <td className="muted">
              {e.judgeRunId && (
                <a className="mono" href={`#/runs/${e.judgeRunId}`} data-testid="judge-run">
                  judge run
                </a>
              )}
              {e.costUsd !== null && ` · $${e.costUsd.toFixed(6)}`}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
