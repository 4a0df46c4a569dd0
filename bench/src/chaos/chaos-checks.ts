import { isDeepStrictEqual } from 'node:util';
import { readRunLog, type Bus } from '@spindle/bus';
import type { RunEvent, RunEventOf, RunTrace } from '@spindle/contracts';
import { referenceFold, traceView } from '@spindle/testing';
import { markerOf, type ProviderCall } from './chaos-workflows';
import type { DrivenRun } from './chaos-driver';

/** Error codes no run may end with because of a fault in the infrastructure under it. */
const INFRASTRUCTURE_CODES = new Set([
  'provider_error',
  'internal',
  'interrupted',
  'bus_unavailable',
  'run_lost',
  'service_unavailable',
  'database_unavailable',
  'storage_full',
]);

export type RunOutcome = 'completed' | 'failed' | 'canceled' | 'waiting' | 'unsettled';

/** What the checks found about one run. */
export interface RunFindings {
  runId: string;
  outcome: RunOutcome;
  errorCode?: string;
  /** Messages on the run's subject that are not part of its log (a repeated or lost-and-rewritten event). */
  foreignMessages: number;
  /** The trace the recorder serves differs from a fold of the log. */
  traceMismatch?: string;
  /** Calls at the provider beyond one per model span (allowed while no completion is recorded). */
  repeatedCalls: number;
  /** Calls at the provider after the log recorded that call's completion: never allowed. */
  callsAfterCompletion: number;
  violations: string[];
}

/**
 * Checks one run after the chaos: it ended or legitimately waits; its log is gapless with one
 * terminal event and nothing else on its subject; the trace equals a fold of the log; no model
 * call was repeated after its completion was recorded; it did not fail because of a fault.
 */
export async function checkRun(
  bus: Bus,
  gatewayUrl: string,
  auth: Record<string, string>,
  run: DrivenRun,
  calls: ReadonlyMap<string, number[]>,
): Promise<RunFindings> {
  // Messages, not events: a writer stores a run's events in batches, and one skipped event makes its message foreign.
  const skipped = new Set<number>();
  const { events, position } = await readRunLog(bus, run.runId, 0, { onSkip: ({ streamSeq }) => void skipped.add(streamSeq) });
  const subject = bus.names.eventSubject(run.runId);
  const stored = (await bus.jsm.streams.info(bus.names.eventsStream, { subjects_filter: subject })).state.subjects?.[subject] ?? 0;
  const read = position?.messages ?? 0;
  const outcome = outcomeOf(events);
  const failed = events.find((e): e is RunEventOf<'run.failed'> => e.type === 'run.failed');
  const findings: RunFindings = {
    runId: run.runId,
    outcome,
    ...(failed ? { errorCode: failed.data.error.code } : {}),
    // Skipped when read, or never read at all (stored after the log's end).
    foreignMessages: skipped.size + (stored - read),
    repeatedCalls: 0,
    callsAfterCompletion: 0,
    violations: [],
  };
  const v = findings.violations;
  if (outcome === 'unsettled') v.push('neither ended nor waiting');
  if (outcome === 'waiting' && run.answer) v.push('answered, yet still waiting');
  if (findings.foreignMessages !== 0) v.push(`${findings.foreignMessages} message(s) on its subject are not part of its log`);
  if (failed && INFRASTRUCTURE_CODES.has(failed.data.error.code))
    v.push(`failed with ${failed.data.error.code}: ${failed.data.error.message}`);
  if (outcome === 'canceled' && !wasCanceledByDriver(events)) v.push('canceled, but not by the driver');

  const trace = await traceOf(gatewayUrl, auth, run.runId, events.at(-1)?.seq ?? 0);
  const expected = referenceFold(events, { orphans: 'canceled' });
  const actual = trace ? traceView(trace) : undefined;
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(actual ?? null)), JSON.parse(JSON.stringify(expected)))) {
    findings.traceMismatch = firstDifference(canonical(actual ?? 'no trace'), canonical(expected));
    v.push(`trace differs from a fold of the log: ${findings.traceMismatch}`);
  }

  for (const [key, completedAt] of modelCompletions(events)) {
    const seen = calls.get(key) ?? [];
    findings.repeatedCalls += Math.max(0, seen.length - Math.max(1, completedAt.length));
    const lastCompletion = Math.max(...completedAt);
    findings.callsAfterCompletion += seen.filter((t) => t > lastCompletion).length;
  }
  if (findings.callsAfterCompletion > 0) v.push(`${findings.callsAfterCompletion} model call(s) after their completion was recorded`);
  return findings;
}

function outcomeOf(events: readonly RunEvent[]): RunOutcome {
  const last = events.at(-1);
  if (!last) return 'unsettled';
  if (last.type === 'run.completed') return 'completed';
  if (last.type === 'run.failed') return 'failed';
  if (last.type === 'run.canceled') return 'canceled';
  if (last.type === 'run.awaiting') return 'waiting';
  return 'unsettled';
}

function wasCanceledByDriver(events: readonly RunEvent[]): boolean {
  const canceled = events.find((e): e is RunEventOf<'run.canceled'> => e.type === 'run.canceled');
  return canceled?.data.reason?.includes('chaos') ?? false;
}

/**
 * The provider-side key of every completed model call in the log (its step's marker and how
 * many messages it sent), with when each completion was recorded.
 */
function modelCompletions(events: readonly RunEvent[]): Map<string, number[]> {
  const started = new Map<string, RunEventOf<'model.started'>>();
  const markerByNode = new Map<string, string>();
  const completions = new Map<string, number[]>();
  for (const e of events) {
    if (e.type === 'model.started') {
      started.set(e.spanId, e);
      const marker =
        markerOf(e.data.prompt) ?? markerOf(e.data.system) ?? e.data.messages?.map((m) => markerOf(String(m.content ?? ''))).find(Boolean);
      if (marker && e.parentSpanId && !markerByNode.has(e.parentSpanId)) markerByNode.set(e.parentSpanId, marker);
    } else if (e.type === 'model.completed') {
      const start = started.get(e.spanId);
      if (!start?.parentSpanId) continue;
      const marker = markerByNode.get(start.parentSpanId) ?? 'unmarked';
      const turn = start.data.prompt !== undefined ? 1 : (start.data.history?.length ?? 0) + (start.data.messages?.length ?? 0);
      const key = `${marker}#${turn}`;
      completions.set(key, [...(completions.get(key) ?? []), Date.parse(e.at)]);
    }
  }
  return completions;
}

async function traceOf(gatewayUrl: string, auth: Record<string, string>, runId: string, lastSeq: number): Promise<RunTrace | undefined> {
  // The recorder may still be catching up after its own restart: read-your-writes, a few times.
  for (let attempt = 0; attempt < 20; attempt++) {
    const res = await fetch(`${gatewayUrl}/v1/runs/${runId}/trace`, { headers: auth });
    if (res.status === 200) {
      const trace = (await res.json()) as RunTrace;
      if (trace.run.lastSeq >= lastSeq) return trace;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return undefined;
}

/** JSON with keys sorted, so two texts differ only where the values do. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

/** Where two JSON texts first differ, with a little context. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at ${i}: got …${a.slice(Math.max(0, i - 60), i + 60)}… expected …${b.slice(Math.max(0, i - 60), i + 60)}…`;
}

/** Provider calls by key, each key's call times in order. */
export function callsByKey(calls: readonly ProviderCall[]): Map<string, number[]> {
  const byKey = new Map<string, number[]>();
  for (const c of calls) byKey.set(c.key, [...(byKey.get(c.key) ?? []), c.at]);
  return byKey;
}
