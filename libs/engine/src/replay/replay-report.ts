import { canonicalJson, type ReplayDivergence, type ReplayRunReport, type RunEvent, type RunEventOf } from '@spindle/contracts';
import { executionKey } from '../interpreter/run-history';
import { sentMessageHashes, toolCallFingerprint, type ModelStartedData } from './call-fingerprints';

type Report = Omit<ReplayRunReport, 'sourceRunId' | 'runId'>;
type ToolCalled = RunEventOf<'tool.called'>;
type ModelStarted = RunEventOf<'model.started'>;

/** One node execution of a log: what it started with, the calls made under it, how it ended. */
interface Execution {
  started: RunEventOf<'node.started'>;
  models: ModelStarted[];
  tools: ToolCalled[];
  ended?: RunEventOf<'node.completed'> | RunEventOf<'node.failed'>;
  reached: boolean;
}

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.canceled']);

/**
 * Where a replay first went another way than the run it replays, read from the two logs (pure:
 * the gateway reads them, this compares). Node executions are matched by path and occurrence;
 * calls under a node by their order there; the first difference in the replay's order wins.
 */
export function replayReport(recorded: readonly RunEvent[], replay: readonly RunEvent[]): Report {
  const source = indexExecutions(recorded);
  const divergence = firstDivergence(source, replay);
  const terminal = replay.at(-1);
  const ended = terminal !== undefined && TERMINAL.has(terminal.type);
  const failure = terminal?.type === 'run.failed' ? terminal.data.error : undefined;
  const outcome = !ended ? 'pending' : failure?.code === 'replay_diverged' ? 'stopped' : divergence ? 'diverged' : 'same';
  return {
    outcome,
    divergence,
    calls: callCounts(replay),
    costUsd: {
      recorded: costOf(recorded, () => true),
      replay: costOf(replay, () => true),
      spent: costOf(replay, (e) => !e.data.replayedFrom),
    },
    error: failure ? { code: failure.code, message: failure.message } : null,
  };
}

interface SourceIndex {
  byKey: Map<string, Execution>;
  bySpan: Map<string, Execution>;
  terminal?: RunEvent;
}

function indexExecutions(events: readonly RunEvent[]): SourceIndex {
  const byKey = new Map<string, Execution>();
  const bySpan = new Map<string, Execution>();
  const occurrences = new Map<string, number>();
  let terminal: RunEvent | undefined;
  for (const e of events) {
    if (e.type === 'node.started') {
      const n = occurrences.get(e.path) ?? 0;
      occurrences.set(e.path, n + 1);
      const execution: Execution = { started: e, models: [], tools: [], reached: false };
      byKey.set(executionKey(e.path, n), execution);
      bySpan.set(e.spanId, execution);
    } else if (e.type === 'model.started') bySpan.get(e.parentSpanId ?? '')?.models.push(e);
    else if (e.type === 'tool.called') bySpan.get(e.parentSpanId ?? '')?.tools.push(e);
    else if (e.type === 'node.completed' || e.type === 'node.failed') {
      const execution = bySpan.get(e.spanId);
      if (execution) execution.ended = e;
    } else if (TERMINAL.has(e.type)) terminal = e;
  }
  return { byKey, bySpan, terminal };
}

/** The replay's walk set against the recording's executions, event by event. */
function firstDivergence(source: SourceIndex, replay: readonly RunEvent[]): ReplayDivergence | null {
  // The replay's own executions, by span: which call of its node each call is.
  const mine = new Map<string, Execution>();
  const matched = new Map<string, Execution>();
  const occurrences = new Map<string, number>();
  const startedCalls = new Map<string, ModelStarted | ToolCalled>();
  const at = (e: RunEvent, kind: ReplayDivergence['kind'], detail: string, sourceSeq: number | null): ReplayDivergence => ({
    kind,
    nodeId: e.nodeId ?? null,
    path: e.path === 'root' ? null : e.path,
    seq: e.seq,
    sourceSeq,
    detail,
  });
  for (const e of replay) {
    if (e.type === 'node.started') {
      const n = occurrences.get(e.path) ?? 0;
      occurrences.set(e.path, n + 1);
      const recorded = source.byKey.get(executionKey(e.path, n));
      if (!recorded) return at(e, 'branch', `node "${e.nodeId}" ran in the replay; the recorded run never ran it here`, null);
      recorded.reached = true;
      matched.set(e.spanId, recorded);
      mine.set(e.spanId, { started: e, models: [], tools: [], reached: true });
    } else if (e.type === 'model.started' || e.type === 'tool.called') {
      startedCalls.set(e.spanId, e);
      const execution = mine.get(e.parentSpanId ?? '');
      if (e.type === 'model.started') execution?.models.push(e);
      else execution?.tools.push(e);
    } else if (
      (e.type === 'model.completed' && !e.data.replayedFrom) ||
      (e.type === 'model.failed' && e.data.error.code === 'replay_diverged')
    ) {
      const started = startedCalls.get(e.spanId) as ModelStarted | undefined;
      if (!started) continue;
      const index = (mine.get(started.parentSpanId ?? '')?.models.length ?? 1) - 1;
      const recordedCall = matched.get(started.parentSpanId ?? '')?.models[index];
      return at(started, 'model_call', modelCallDifference(started.data, recordedCall?.data), recordedCall?.seq ?? null);
    } else if (e.type === 'tool.returned' && !e.data.replayedFrom) {
      const called = startedCalls.get(e.spanId) as ToolCalled | undefined;
      if (!called) continue;
      const index = (mine.get(called.parentSpanId ?? '')?.tools.length ?? 1) - 1;
      const recordedCall = matched.get(called.parentSpanId ?? '')?.tools[index];
      return at(called, 'tool_call', toolCallDifference(called, recordedCall), recordedCall?.seq ?? null);
    } else if (e.type === 'node.completed' || e.type === 'node.failed') {
      const recorded = matched.get(e.spanId)?.ended;
      const difference = nodeEndDifference(e, recorded);
      if (difference) return at(e, 'node_output', difference, recorded?.seq ?? null);
    } else if (TERMINAL.has(e.type)) {
      const missed = [...source.byKey.values()].find((x) => !x.reached);
      if (missed) {
        const detail = `node "${missed.started.nodeId}" of the recorded run did not run in the replay`;
        return { ...at(e, 'branch', detail, missed.started.seq), nodeId: missed.started.nodeId ?? null, path: missed.started.path };
      }
      const difference = outcomeDifference(e, source.terminal);
      if (difference) return at(e, 'outcome', difference, source.terminal?.seq ?? null);
    }
  }
  return null;
}

/** What differs between a call the replay made and the recorded call in its place, in a sentence. */
export function modelCallDifference(made: ModelStartedData, recorded: ModelStartedData | undefined): string {
  if (!recorded) return `a model call the recorded run did not make here (${made.model})`;
  if (made.model !== recorded.model) return `model ${made.model} where the recording asked ${recorded.model}`;
  if ((made.system ?? '') !== (recorded.system ?? ''))
    return `the system prompt ${quote(made.system ?? '')} where the recording sent ${quote(recorded.system ?? '')}`;
  const madeTools = (made.tools ?? []).join(', ');
  const recordedTools = (recorded.tools ?? []).join(', ');
  if (madeTools !== recordedTools) return `tools [${madeTools}] where the recording offered [${recordedTools}]`;
  const a = sentMessageHashes(made);
  const b = sentMessageHashes(recorded);
  const index = a.findIndex((hash, i) => hash !== b[i]);
  if (index === -1) return `${a.length} messages where the recording sent ${b.length}`;
  const was = messageText(recorded, index);
  return (
    `message ${index + 1} ${quote(messageText(made, index) ?? '(not logged here)')}` +
    (was === undefined ? '' : ` where the recording sent ${quote(was)}`)
  );
}

function toolCallDifference(made: ToolCalled, recorded: ToolCalled | undefined): string {
  if (!recorded) return `a call of tool "${made.data.name}" the recorded run did not make here`;
  if (made.data.name !== recorded.data.name) return `tool "${made.data.name}" where the recording called "${recorded.data.name}"`;
  if (toolCallFingerprint(made.data.name, made.data.arguments) === toolCallFingerprint(recorded.data.name, recorded.data.arguments))
    return `tool "${made.data.name}" with the recorded arguments, once more than the recording called it`;
  const [now, was] = [made, recorded].map((call) => quote(canonicalJson(call.data.arguments)));
  return `tool "${made.data.name}" with ${now} where the recording passed ${was}`;
}

function nodeEndDifference(
  ended: RunEventOf<'node.completed'> | RunEventOf<'node.failed'>,
  recorded: RunEventOf<'node.completed'> | RunEventOf<'node.failed'> | undefined,
): string | undefined {
  // Stopped at a call: the call is the divergence, reported before this.
  if (ended.type === 'node.failed' && ended.data.error.code === 'replay_diverged') return undefined;
  if (!recorded) return `node "${ended.nodeId}" ended in the replay where the recorded run never ended it`;
  if (ended.type !== recorded.type)
    return ended.type === 'node.failed'
      ? `node "${ended.nodeId}" failed (${ended.data.error.code}) where the recording completed`
      : `node "${ended.nodeId}" completed where the recording failed (${(recorded as RunEventOf<'node.failed'>).data.error.code})`;
  if (ended.type === 'node.completed' && recorded.type === 'node.completed') {
    const [now, was] = [ended, recorded].map((e) => canonicalJson(e.data.output));
    if (now !== was) return `node "${ended.nodeId}" answered ${quote(now)} where the recording has ${quote(was)}`;
    const [edge, recordedEdge] = [ended, recorded].map((e) => e.data.handle ?? 'default');
    if (edge !== recordedEdge) return `node "${ended.nodeId}" took the edge "${edge}" where the recording took "${recordedEdge}"`;
  }
  return undefined;
}

function outcomeDifference(ended: RunEvent, recorded: RunEvent | undefined): string | undefined {
  if (!recorded) return `the replay ${ended.type.slice(4)} where the recorded run has not ended`;
  if (ended.type !== recorded.type) return `the replay ${ended.type.slice(4)} where the recorded run ${recorded.type.slice(4)}`;
  if (ended.type === 'run.completed' && recorded.type === 'run.completed') {
    return canonicalJson(ended.data.output) === canonicalJson(recorded.data.output) ? undefined : 'the run completed with another output';
  }
  return undefined;
}

/** The text of a call's n-th message where its event has it (a single prompt, or a message the call added). */
function messageText(started: ModelStartedData, index: number): string | undefined {
  if (started.prompt !== undefined) return index === 0 ? started.prompt : undefined;
  const added = started.messages?.[index - (started.history?.length ?? 0)];
  const content = added?.['content'];
  return typeof content === 'string' ? content : undefined;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 160 ? `${text.slice(0, 157)}...` : text);
}

function callCounts(replay: readonly RunEvent[]): Report['calls'] {
  const calls = { modelServed: 0, modelMade: 0, toolServed: 0, toolMade: 0 };
  for (const e of replay) {
    if (e.type === 'model.completed') calls[e.data.replayedFrom ? 'modelServed' : 'modelMade'] += 1;
    else if (e.type === 'tool.returned' && e.data.error?.code !== 'replay_diverged')
      calls[e.data.replayedFrom ? 'toolServed' : 'toolMade'] += 1;
  }
  return calls;
}

function costOf(events: readonly RunEvent[], counts: (e: RunEventOf<'model.completed'>) => boolean): number {
  let usd = 0;
  for (const e of events) if (e.type === 'model.completed' && counts(e)) usd += e.data.usage.costUsd ?? 0;
  return Math.round(usd * 1e9) / 1e9;
}
