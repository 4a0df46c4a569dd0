import { costLabel, onRunEvent, type RunEvent, type RunEventHandlers, type Usage } from '@spindle/contracts';
import { briefJson } from './json-brief';

const BRIEF = 60;

/** One event as one line of plain text (`seq`, type, where, what), for logs and pipes. */
export function eventLine(event: RunEvent): string {
  const where = event.nodeId ? ` ${event.path}` : '';
  const what = onRunEvent(summaries, event);
  return `#${event.seq} ${event.type}${where}${what ? `  ${what}` : ''}`;
}

// Exhaustive: a new event type does not compile until it says what its line shows.
const summaries: RunEventHandlers<string> = {
  'run.queued': (e) => `${e.data.workflow.name} v${e.data.workflow.version} input ${briefJson(e.data.input, BRIEF)}`,
  'run.started': (e) => `attempt ${e.data.attempt} on ${e.data.worker}`,
  'run.awaiting': (e) => `waiting for ${e.data.reason === 'input' ? 'input' : 'a tool approval'} ${(e.data.requestIds ?? []).join(' ')}`,
  'run.resumed': (e) => `${e.data.reason}, attempt ${e.data.attempt}`,
  'run.yielded': (e) => e.data.reason,
  'run.completed': (e) => `${ms(e.data.durationMs)}, ${usage(e.data.usage)}, output ${briefJson(e.data.output, BRIEF)}`,
  'run.failed': (e) => `${e.data.error.code}: ${e.data.error.message}`,
  'run.canceled': (e) => e.data.reason ?? '',
  'node.started': (e) => e.data.nodeType,
  'node.completed': (e) => `${ms(e.data.durationMs)} ${briefJson(e.data.output, BRIEF)}${e.data.handle ? ` → ${e.data.handle}` : ''}`,
  'node.failed': (e) => `${e.data.error.code}: ${e.data.error.message}`,
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
};

function ms(durationMs: number): string {
  return `${Math.round(durationMs)} ms`;
}

function usage(u: Usage): string {
  return `${u.totalTokens} tok ${costLabel(u)}`;
}
