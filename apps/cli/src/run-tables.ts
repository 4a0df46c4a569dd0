import { costLabel, forkOriginText, humanDuration, type ForkPoint, type RunSummary } from '@spindle/contracts';
import { formatTable } from './text-table';

/** What `spindle runs list` and `runs get` print: pure, so each is tested as text. */

/** How many characters of a parent's id the list shows: the tail, where ids made the same minute differ. */
const PARENT_TAIL = 10;

/** `runs list`: one run a line, newest first; a fork's parent by the tail of its id (`runs get` names it in full). */
export function runTable(runs: readonly RunSummary[]): string[] {
  const columns = [
    { header: 'run' },
    { header: 'workflow' },
    { header: 'status' },
    { header: 'queued' },
    { header: 'wall', align: 'right' as const },
    { header: 'working', align: 'right' as const },
    { header: 'tokens', align: 'right' as const },
    { header: 'cost', align: 'right' as const },
    { header: 'parent' },
  ];
  const rows = runs.map((r) => [
    r.runId,
    `${r.workflow.name} v${r.workflow.version}`,
    r.status,
    r.queuedAt,
    humanDuration(r.wallMs),
    humanDuration(r.workingMs),
    String(r.usage.totalTokens),
    costLabel(r.usage),
    r.forkedFrom ? shortRunId(r.forkedFrom.runId) : '-',
  ]);
  return formatTable(columns, rows);
}

/** `runs get`: the run's fields, one a line. */
export function runDetail(run: RunSummary): string[] {
  const rows: [string, string][] = [
    ['run', run.runId],
    ['workflow', `${run.workflow.name} v${run.workflow.version}`],
    ['status', run.status],
    ['queued', run.queuedAt],
    ['started', run.startedAt ?? '-'],
    ['ended', run.endedAt ?? '-'],
    ['wall time', humanDuration(run.wallMs)],
    ['working time', `${humanDuration(run.workingMs)} (wall time less the waits for a person)`],
    ['tokens', `${run.usage.totalTokens} (${run.usage.inputTokens} in, ${run.usage.outputTokens} out)`],
    ['cost', costLabel(run.usage)],
    ['error', run.error ? `${run.error.code}: ${run.error.message}` : '-'],
    ['forked from', run.forkedFrom ? forkOrigin(run.forkedFrom) : '-'],
    ['last seq', String(run.lastSeq)],
  ];
  return formatTable([{ header: '' }, { header: '' }], rows, { headers: false });
}

/**
 * A fork's edge in the console's words: `<run> at cp-1 (event 7) by <who>` (the checkpoint when the log names it,
 * who forked it when it was recorded: logs written before identity do not say).
 */
export function forkOrigin(forkedFrom: ForkPoint): string {
  const { at, by } = forkOriginText(forkedFrom);
  return `${forkedFrom.runId} at ${at}${by ? ` by ${by}` : ''}`;
}

/** `…` and an id's last characters. */
export function shortRunId(runId: string): string {
  return runId.length > PARENT_TAIL ? `…${runId.slice(-PARENT_TAIL)}` : runId;
}
