import {
  costLabel,
  webhookScope,
  type Dataset,
  type DatasetItem,
  type Experiment,
  type ExperimentComparison,
  type ExperimentItem,
  type ReplayListItem,
  type ReplayRunReport,
  type Schedule,
  type ScheduleFiring,
  type Thread,
  type ThreadRun,
  type Webhook,
  type WebhookDelivery,
  type WebhookEvent,
  type WebhookSignatureCheck,
} from '@spindle/contracts';
import { formatTable } from './text-table';

/** The tables `spindle threads|schedules|webhooks` print: pure, so each is tested as text. */

export function threadTable(threads: readonly Thread[]): string[] {
  if (threads.length === 0) return ['no threads yet (start one: POST /v1/threads)'];
  return formatTable(
    [{ header: 'thread' }, { header: 'status' }, { header: 'runs', align: 'right' }, { header: 'state from' }, { header: 'created' }],
    threads.map((t) => [t.threadId, t.status, String(t.runs), t.stateFromRun ?? '-', t.createdAt]),
  );
}

export function threadRunTable(runs: readonly ThreadRun[]): string[] {
  if (runs.length === 0) return ['no runs on this thread yet'];
  return formatTable(
    [
      { header: '#', align: 'right' },
      { header: 'run' },
      { header: 'workflow' },
      { header: 'status' },
      { header: 'strategy' },
      { header: 'queued' },
    ],
    runs.map((r) => [String(r.position), r.runId, r.workflow, r.status, r.multitaskStrategy, r.queuedAt]),
  );
}

const scheduleState = (s: Schedule): string => (s.paused ? 'paused' : 'active');
const versionOf = (s: Schedule): string => (s.version === null ? 'latest' : `v${s.version}`);

export function scheduleTable(schedules: readonly Schedule[]): string[] {
  if (schedules.length === 0) return ['no schedules yet (make one: POST /v1/schedules)'];
  return formatTable(
    [{ header: 'schedule' }, { header: 'cron' }, { header: 'zone' }, { header: 'workflow' }, { header: 'state' }, { header: 'next' }],
    schedules.map((s) => [s.scheduleId, s.cron, s.timezone, `${s.workflow} ${versionOf(s)}`, scheduleState(s), s.nextFireAt ?? '-']),
  );
}

/** A schedule, its next firings and its firing history (newest first). */
export function scheduleDetail(s: Schedule, firings: readonly ScheduleFiring[]): string[] {
  const lines = [
    `${s.scheduleId}  ${scheduleState(s)}`,
    `  cron ${s.cron} (${s.timezone}), runs ${s.workflow} ${versionOf(s)}, overlap ${s.overlap}, catch-up ${s.catchUp}`,
    s.upcoming.length === 0 ? '  next firings: none while paused' : `  next firings: ${s.upcoming.join(', ')}`,
    '',
  ];
  if (firings.length === 0) return [...lines, 'no firings yet'];
  const rows = firings.map((f) => [f.fireAt, f.outcome, f.runId ?? '-', f.detail ?? '']);
  return [...lines, ...formatTable([{ header: 'fired' }, { header: 'outcome' }, { header: 'run' }, { header: 'detail' }], rows)];
}

export function webhookTable(webhooks: readonly Webhook[]): string[] {
  if (webhooks.length === 0) return ['no webhooks yet (try one locally: spindle webhooks listen)'];
  return formatTable(
    [{ header: 'webhook' }, { header: 'url' }, { header: 'events' }, { header: 'scope' }],
    webhooks.map((w) => [w.webhookId, w.url, w.events.join(','), webhookScope(w)]),
  );
}

/** Each delivery, then one indented line per attempt: its status or error, and the time it took. */
export function deliveryLines(deliveries: readonly WebhookDelivery[]): string[] {
  if (deliveries.length === 0) return ['no deliveries yet'];
  return deliveries.flatMap((d) => [
    `${d.deliveryId}  ${d.eventType}  run ${d.runId}  ${d.status}` +
      (d.nextAttemptAt ? `, next attempt ${d.nextAttemptAt}` : d.deliveredAt ? ` ${d.deliveredAt}` : ''),
    ...d.attempts.map(
      (a) =>
        `  attempt ${a.attempt}  ${a.at}  ${a.statusCode === null ? 'no answer' : `HTTP ${a.statusCode}`}  ${a.durationMs} ms` +
        (a.error ? `  ${a.error}` : ''),
    ),
  ]);
}

/** One line per delivery `spindle webhooks listen` receives, and what its signature check said when it failed. */
export function receivedLine(event: WebhookEvent, signature: WebhookSignatureCheck): string {
  const { data } = event;
  const what = data.error
    ? `${data.error.code}: ${data.error.message}`
    : data.awaiting
      ? `${data.awaiting.reason} ${data.awaiting.requestIds.join(',')}`
      : data.output
        ? `output keys ${Object.keys(data.output).join(',') || '-'}`
        : '';
  const refused = signature.ok ? '' : `  (refused: Spindle-Signature ${signature.reason.replace('_', ' ')})`;
  return `${event.type}  run ${data.runId}  ${data.workflow.name} v${data.workflow.version}  ${what}${refused}`.trimEnd();
}

export function datasetTable(datasets: readonly Dataset[]): string[] {
  if (datasets.length === 0) return ['no datasets yet (make one: spindle datasets put <name>)'];
  return formatTable(
    [{ header: 'dataset' }, { header: 'version', align: 'right' }, { header: 'items', align: 'right' }, { header: 'description' }],
    datasets.map((d) => [d.name, String(d.version), String(d.items), d.description ?? '']),
  );
}

/** JSON cut to a column's width: the whole item is in `--json`. */
const short = (value: unknown, width = 48): string => {
  const text = value === null || value === undefined ? '-' : JSON.stringify(value);
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
};

export function datasetItemTable(items: readonly DatasetItem[]): string[] {
  if (items.length === 0) return [];
  return formatTable(
    [{ header: 'item' }, { header: 'input' }, { header: 'expected' }, { header: 'from run' }],
    items.map((i) => [i.itemId, short(i.input), short(i.expected), i.sourceRunId ?? '-']),
  );
}

export function experimentTable(experiments: readonly Experiment[]): string[] {
  if (experiments.length === 0) return ['no experiments yet (run one: spindle experiments run <workflow> --dataset <name>)'];
  return formatTable(
    [{ header: 'experiment' }, { header: 'status' }, { header: 'workflow' }, { header: 'dataset' }, { header: 'items', align: 'right' }],
    experiments.map((e) => [
      e.experimentId,
      e.status,
      `${e.workflow.name} v${e.workflow.version}`,
      `${e.dataset.name} v${e.dataset.version}`,
      String(e.summary.items),
    ]),
  );
}

export function experimentItemTable(items: readonly ExperimentItem[]): string[] {
  if (items.length === 0) return [];
  return formatTable(
    [{ header: 'item' }, { header: 'status' }, { header: 'run' }, { header: 'output' }, { header: 'scores' }],
    items.map((i) => [
      i.itemId,
      i.status,
      i.runId ?? '-',
      short(i.output, 40),
      Object.entries(i.scores)
        .map(([name, value]) => `${name}=${String(value)}`)
        .join(' ') || '-',
    ]),
  );
}

/**
 * Two or more experiments item by item (`spindle experiments compare`): a line per item and
 * experiment with its status, output, scores, tokens, cost and wall time; `*` marks an item whose
 * outputs or scores differ between the experiments (or that one of them does not have).
 */
export function experimentComparisonTable(comparison: ExperimentComparison): string[] {
  const scoresText = (scores: Record<string, unknown>): string =>
    Object.entries(scores)
      .map(([name, value]) => `${name}=${String(value)}`)
      .join(' ') || '-';
  const rows = comparison.items.flatMap((item) => {
    const results = comparison.experiments.map((e) => item.results[e.experimentId]);
    const differs = new Set(results.map((r) => (r ? JSON.stringify([r.output, r.scores]) : 'missing'))).size > 1;
    return comparison.experiments.map((e, i) => {
      const first = i === 0;
      const lead = [
        first && differs ? '*' : '',
        first ? item.itemId : '',
        first ? short(item.input, 32) : '',
        first ? short(item.expected, 32) : '',
      ];
      const r = results[i];
      if (!r) return [...lead, e.name ?? e.experimentId, '-', 'not in this experiment'];
      return [
        ...lead,
        e.name ?? e.experimentId,
        r.status,
        short(r.output, 40),
        scoresText(r.scores),
        r.usage ? String(r.usage.totalTokens) : '-',
        r.usage ? costLabel(r.usage) : '-',
        r.wallMs === null ? '-' : `${Math.round(r.wallMs)} ms`,
      ];
    });
  });
  return formatTable(
    [
      { header: '' },
      { header: 'item' },
      { header: 'input' },
      { header: 'expected' },
      { header: 'experiment' },
      { header: 'status' },
      { header: 'output' },
      { header: 'scores' },
      { header: 'tokens', align: 'right' },
      { header: 'cost' },
      { header: 'wall' },
    ],
    rows,
  );
}

export function replayTable(replays: readonly ReplayListItem[]): string[] {
  if (replays.length === 0) return ['no replays yet (make one: spindle replays run <workflow> --last 20)'];
  return formatTable(
    [{ header: 'replay' }, { header: 'workflow' }, { header: 'on divergence' }, { header: 'runs', align: 'right' }, { header: 'made' }],
    replays.map((r) => [r.replayId, `${r.workflow.name} v${r.workflow.version}`, r.onDivergence, String(r.runs), r.createdAt]),
  );
}

/** Each recorded run, its replay, how it ended and where it first diverged. */
export function replayRunTable(runs: readonly ReplayRunReport[]): string[] {
  if (runs.length === 0) return [];
  return formatTable(
    [{ header: 'recorded run' }, { header: 'replay run' }, { header: 'outcome' }, { header: 'node' }, { header: 'diverged' }],
    runs.map((r) => [
      r.sourceRunId,
      r.runId,
      r.outcome,
      r.divergence?.nodeId ?? '-',
      r.divergence ? `${r.divergence.kind}: ${r.divergence.detail}` : (r.error?.message ?? '-'),
    ]),
  );
}
