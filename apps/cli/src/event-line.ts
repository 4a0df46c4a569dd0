import {
  costLabel,
  EMPTY_RUN_CLOCK,
  foldRunClock,
  humanDuration,
  nodeDurations,
  onRunEvent,
  runClockDurations,
  type Durations,
  type RunClock,
  type RunEvent,
  type RunEventHandlers,
  type TimedEvent,
  type Usage,
} from '@spindle/contracts';
import { briefJson } from './json-brief';

const BRIEF = 60;

/** The wall and working time of what an event ends (the run, or a node), when the lines have seen it start. */
type EndedDurations = Durations | undefined;

/** One event as one line of plain text (`seq`, type, where, what), for logs and pipes. */
export function eventLine(event: RunEvent, ended?: EndedDurations): string {
  const where = event.nodeId ? ` ${event.path}` : '';
  const what = onRunEvent(summaries(ended), event);
  return `#${event.seq} ${event.type}${where}${what ? `  ${what}` : ''}`;
}

/**
 * Lines for a run's events in log order: a run's or a node's end says its wall and working time
 * (libs/contracts durations), counted from the events seen. Lines that start mid-run (`--after`)
 * have not seen the start: they give the time the runner measured for that attempt instead.
 */
export function eventLines(): (event: RunEvent) => string {
  // The clock starts at the first event folded: only run.queued may start it.
  let clock: RunClock | undefined;
  const ofNode = new Map<string, TimedEvent[]>();
  return (event) => {
    if (event.type === 'run.queued') clock = EMPTY_RUN_CLOCK;
    if (clock) clock = foldRunClock(clock, event);
    if (event.nodeId) ofNode.set(event.nodeId, [...(ofNode.get(event.nodeId) ?? []), event]);
    return eventLine(event, endedDurations(event, clock, ofNode));
  };
}

function endedDurations(event: RunEvent, clock: RunClock | undefined, ofNode: Map<string, TimedEvent[]>): EndedDurations {
  const at = Date.parse(event.at);
  if (event.type === 'run.completed' || event.type === 'run.failed' || event.type === 'run.canceled')
    return clock ? runClockDurations(clock, at) : undefined;
  if ((event.type !== 'node.completed' && event.type !== 'node.failed') || !event.nodeId) return undefined;
  const own = ofNode.get(event.nodeId) ?? [];
  return own.some((e) => e.type === 'node.started') ? nodeDurations(own, event.nodeId, at) : undefined;
}

// Exhaustive: a new event type does not compile until it says what its line shows.
const summaries = (ended: EndedDurations): RunEventHandlers<string> => ({
  'run.queued': (e) => `${e.data.workflow.name} v${e.data.workflow.version} input ${briefJson(e.data.input, BRIEF)}`,
  'run.started': (e) => `attempt ${e.data.attempt} on ${e.data.worker}`,
  'run.awaiting': (e) => `waiting for ${e.data.reason === 'input' ? 'input' : 'a tool approval'} ${(e.data.requestIds ?? []).join(' ')}`,
  'run.resumed': (e) => `${e.data.reason}, attempt ${e.data.attempt}`,
  'run.yielded': (e) => e.data.reason,
  'run.completed': (e) => `${took(ended, e.data.durationMs)}, ${usage(e.data.usage)}, output ${briefJson(e.data.output, BRIEF)}`,
  'run.failed': (e) => `${e.data.error.code}: ${e.data.error.message} (${took(ended, e.data.durationMs)})`,
  'run.canceled': (e) => `${e.data.reason ? `${e.data.reason} ` : ''}(${took(ended, e.data.durationMs)})`,
  'node.started': (e) => e.data.nodeType,
  'node.completed': (e) =>
    `${took(ended, e.data.durationMs)} ${briefJson(e.data.output, BRIEF)}${e.data.handle ? ` → ${e.data.handle}` : ''}`,
  'node.failed': (e) => `${e.data.error.code}: ${e.data.error.message} (${took(ended, e.data.durationMs)})`,
  'model.started': (e) => e.data.model,
  'model.completed': (e) => `${e.data.model} ${ms(e.data.durationMs)}, ${usage(e.data.usage)}`,
  'model.failed': (e) => `${e.data.model} ${e.data.error.code}: ${e.data.error.message}`,
  'tool.called': (e) => `${e.data.name} ${briefJson(e.data.arguments, BRIEF)}`,
  'tool.returned': (e) => `${e.data.name} ${e.data.error ? `${e.data.error.code}: ${e.data.error.message}` : ms(e.data.durationMs)}`,
  'loop.iteration': (e) => `${e.data.iteration} of ${e.data.maxSteps}`,
  'branch.started': (e) => `${e.data.forkId}/${e.data.branchId}`,
  'branch.completed': (e) => `${e.data.forkId}/${e.data.branchId} ${e.data.status}`,
  'input.requested': (e) => `request ${e.data.requestId} (${e.data.form.kind}): ${e.data.prompt}`,
  'input.answered': (e) => `request ${e.data.requestId} ${e.data.timedOut ? 'timed out' : briefJson(e.data.answer, BRIEF)}`,
  'approval.requested': (e) => `request ${e.data.requestId}: ${e.data.call.name} ${briefJson(e.data.call.arguments, BRIEF)}`,
  'approval.resolved': (e) => `request ${e.data.requestId} ${e.data.timedOut ? 'timed out' : e.data.decision}`,
  'checkpoint.saved': (e) => `${e.data.checkpointId} step ${e.data.step}`,
  'context.truncated': (e) =>
    `${e.data.kind} ${e.data.target} cut ${e.data.tokensBefore} → ${e.data.tokensAfter} tokens (${e.data.strategy})`,
  'memory.compacted': (e) =>
    `${e.data.memoryKey}: ${e.data.messagesBefore} → ${e.data.messagesAfter} messages` +
    ` (${e.data.tokensBefore} → ${e.data.tokensAfter} tokens)`,
  'retrieval.completed': (e) =>
    `${e.data.knowledgeBase}: ${e.data.chunkCount} chunks${e.data.topScore === undefined ? '' : ` (top ${e.data.topScore.toFixed(3)})`}`,
  'usage.reported': (e) => `${e.data.source.kind} ${e.data.source.name} ${usage(e.data.usage)}${e.data.label ? ` (${e.data.label})` : ''}`,
  'attempt.failed': (e) => `${e.data.kind} ${e.data.name} try ${e.data.attempt}: ${e.data.error.code}, next in ${ms(e.data.retryInMs)}`,
  custom: (e) => `${e.data.name} ${briefJson(e.data.data, BRIEF)}`,
});

/** Wall and working time when known (shown once when they are the same), else the runner's measure of this attempt. */
function took(ended: EndedDurations, attemptMs: number | undefined): string {
  if (!ended) return attemptMs === undefined ? 'this attempt' : `this attempt ${ms(attemptMs)}`;
  const wall = humanDuration(ended.wallMs);
  const working = humanDuration(ended.workingMs);
  return wall === working ? `wall ${wall}` : `wall ${wall}, working ${working}`;
}

function ms(durationMs: number): string {
  return `${Math.round(durationMs)} ms`;
}

function usage(u: Usage): string {
  return `${u.totalTokens} tok ${costLabel(u)}`;
}
