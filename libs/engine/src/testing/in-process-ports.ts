import type { RunEvent, RunEventDraft } from '@spindle/contracts';
import type { RunEnvironment } from '../interpreter/run-environment';
import type { ModelPort, ModelRequest, ModelResult, RegisteredFunction } from '../ports';

/** Simple in-process ports for engine unit tests (the product uses JetStream and real providers). */
export function recordingEnvironment(opts: {
  model?: ModelPort;
  functions?: Record<string, RegisteredFunction>;
  signal?: AbortSignal;
  maxSteps?: number;
} = {}) {
  const events: RunEvent[] = [];
  const tokens: Array<{ spanId: string; afterSeq: number; text: string }> = [];
  const redacted: Array<{ id: string; error: unknown }> = [];
  let span = 0;
  let correlation = 0;
  let tick = 0;
  const env: RunEnvironment = {
    runId: 'run-1',
    rootSpanId: 'root-span',
    log: {
      async append(draft: RunEventDraft) {
        const seq = events.length + 1;
        events.push({ ...draft, runId: 'run-1', seq, at: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, seq)).toISOString() } as RunEvent);
        return seq;
      },
    },
    model: opts.model ?? scriptedModel([]),
    functions: { get: (name) => opts.functions?.[name] },
    tokens: { push: (t) => tokens.push(t), flush: () => undefined },
    clock: { now: () => new Date(Date.UTC(2026, 0, 1) + 5 * tick++) },
    ids: { spanId: () => `span-${++span}`, correlationId: () => `corr-${++correlation}` },
    signal: opts.signal ?? new AbortController().signal,
    maxSteps: opts.maxSteps ?? 100,
    reportRedacted: (id, error) => redacted.push({ id, error }),
  };
  return { env, events, tokens, redacted };
}

/** Replies in order; each reply may be text or an error to throw. Records every request. */
export function scriptedModel(replies: Array<string | Error>): ModelPort & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    requests,
    async generate(request): Promise<ModelResult> {
      requests.push(request);
      const reply = replies[requests.length - 1];
      if (reply === undefined) throw new Error(`scripted model has no reply #${requests.length}`);
      if (reply instanceof Error) throw reply;
      if (request.stream) for (const word of reply.split(/(?<=\s)/)) request.onDelta?.(word);
      const words = reply.split(/\s+/).filter(Boolean).length;
      return { text: reply, usage: { inputTokens: 3, outputTokens: words, totalTokens: 3 + words }, finishReason: 'stop', toolCalls: [] };
    },
  };
}
