import type { RunTrace, Score, TraceSpan } from '@spindle/contracts';
import { briefJson } from './json-brief';
import { formatTable } from './text-table';

const OUTPUT_WIDTH = 51;
const COMMENT_WIDTH = 40;

/**
 * A trace as the README shows it: one row per span in log order, its output (the state delta) cut
 * short; then, when the run has scores, one row per score under a `scores` heading.
 */
export function traceTable(trace: RunTrace): string[] {
  const rows = trace.spans.map((span) => [
    span.kind,
    span.kind === 'run' ? '-' : (span.nodeId ?? '-'),
    span.path,
    span.status,
    span.durationMs === null ? '' : String(Math.round(span.durationMs)),
    span.workingMs === null || span.workingMs === undefined ? '' : String(Math.round(span.workingMs)),
    outcome(span),
  ]);
  const spans = formatTable(
    [
      { header: 'kind' },
      { header: 'node' },
      { header: 'path' },
      { header: 'status' },
      { header: 'wall ms', align: 'right' },
      { header: 'working ms', align: 'right' },
      { header: 'output (the state delta)' },
    ],
    rows,
  );
  // A gateway older than the trace's scores answers without them.
  const scores = trace.scores ?? [];
  return scores.length === 0 ? spans : [...spans, '', 'scores', ...scoreTable(scores, trace.spans)];
}

/** Each score: its name and value, what it is about (the run, or a span by kind and path), who gave it, when, and why. */
function scoreTable(scores: readonly Score[], spans: readonly TraceSpan[]): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const rows = scores.map((score) => [
    score.name,
    JSON.stringify(score.value),
    about(score.spanId === null ? undefined : (byId.get(score.spanId) ?? score.spanId)),
    givenBy(score),
    score.createdAt,
    score.comment === null ? '' : oneLine(score.comment, COMMENT_WIDTH),
  ]);
  return formatTable(
    [{ header: 'name' }, { header: 'value' }, { header: 'on' }, { header: 'by' }, { header: 'at' }, { header: 'comment' }],
    rows,
  );
}

function about(span: TraceSpan | string | undefined): string {
  if (span === undefined) return 'run';
  if (typeof span === 'string') return `span ${span}`;
  return span.kind === 'run' ? 'run' : `${span.kind} ${span.path}`;
}

function givenBy(score: Score): string {
  if (score.evaluator) return `evaluator ${score.evaluator.name} (${score.evaluator.version})`;
  return `${score.by.kind} ${score.by.name || score.by.id}`;
}

/** Text on one line (a table cell; control characters, a terminal's escapes among them, as spaces), cut to `width` with `…`. */
function oneLine(text: string, width: number): string {
  const chars = [...text.replace(/[\s\p{Cc}]+/gu, ' ').trim()];
  return chars.length <= width ? chars.join('') : chars.slice(0, width - 1).join('') + '…';
}

function outcome(span: TraceSpan): string {
  if (span.error) return `${span.error.code}: ${span.error.message}`.slice(0, OUTPUT_WIDTH);
  return briefJson(span.output, OUTPUT_WIDTH);
}
