import { runEventSchema, type RunEvent, type RunEventDraft } from '@spindle/contracts';

const T0 = Date.parse('2025-03-01T10:00:00.000Z');

/** Numbers drafts 1..n and stamps them one second apart, validated like the log writer does. */
export function runLog(runId: string, drafts: RunEventDraft[], firstSeq = 1): RunEvent[] {
  return drafts.map((draft, i) => {
    const seq = firstSeq + i;
    return runEventSchema.parse({ ...draft, runId, seq, at: new Date(T0 + seq * 1_000).toISOString() }) as RunEvent;
  });
}

export const usage = (inputTokens: number, outputTokens: number) => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
  costUsd: 0,
});

const root = { spanId: 'root', path: 'root' };

export function queued(workflow = 'support', extra: Partial<{ forkedFrom: { runId: string; seq: number } }> = {}): RunEventDraft {
  return {
    type: 'run.queued',
    ...root,
    data: { workflow: { name: workflow, version: 2 }, input: { question: 'hi' }, state: {}, definition: {}, ...extra },
  };
}

/** queued → started → node `reply` (an llm node) with one model call → completed. */
export function completedRunDrafts(): RunEventDraft[] {
  const node = { nodeId: 'reply', spanId: 'span-reply', parentSpanId: 'root', path: 'root/reply' };
  const model = { nodeId: 'reply', spanId: 'span-model', parentSpanId: 'span-reply', path: 'root/reply' };
  return [
    queued(),
    { type: 'run.started', ...root, data: { attempt: 1, worker: 'w1' } },
    { type: 'node.started', ...node, data: { nodeType: 'llm', input: { prompt: 'say hi' } } },
    { type: 'model.started', ...model, data: { model: 'offline:echo', system: 'be brief', prompt: 'say hi', stream: false } },
    { type: 'model.completed', ...model, data: { model: 'offline:echo', text: 'hello', usage: usage(3, 2), durationMs: 40 } },
    { type: 'node.completed', ...node, data: { nodeType: 'llm', output: { answer: 'hello' }, durationMs: 50 } },
    { type: 'run.completed', ...root, data: { output: { answer: 'hello' }, durationMs: 60, usage: usage(3, 2) } },
  ];
}

/** queued → started → node `lookup` fails → run failed. */
export function failedRunDrafts(): RunEventDraft[] {
  const node = { nodeId: 'lookup', spanId: 'span-lookup', parentSpanId: 'root', path: 'root/lookup' };
  const error = { code: 'function_failed' as const, message: 'order 42 not found', nodeId: 'lookup' };
  return [
    queued('orders'),
    { type: 'run.started', ...root, data: { attempt: 1, worker: 'w1' } },
    { type: 'node.started', ...node, data: { nodeType: 'function', input: { order: 42 } } },
    { type: 'node.failed', ...node, data: { nodeType: 'function', error, durationMs: 5 } },
    { type: 'run.failed', ...root, data: { error, durationMs: 7 } },
  ];
}
