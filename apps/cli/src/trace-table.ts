import type { RunTrace, TraceSpan } from '@spindle/contracts';
import { briefJson } from './json-brief';
import { formatTable } from './text-table';

const OUTPUT_WIDTH = 51;

/** A trace as the README shows it: one row per span in log order, its output (the state delta) cut short. */
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
  return formatTable(
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
}

function outcome(span: TraceSpan): string {
  if (span.error) return `${span.error.code}: ${span.error.message}`.slice(0, OUTPUT_WIDTH);
  return briefJson(span.output, OUTPUT_WIDTH);
}
