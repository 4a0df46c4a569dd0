import type { RunEvent, RunEventDraft } from '@spindle/contracts';
import type { RunEnvironment } from '../interpreter/run-environment';
import { SpindleError } from '@spindle/contracts';
import type {
  ModelPort,
  ModelRequest,
  ModelResult,
  NodeResultStore,
  RegisteredFunction,
  RetrieverPort,
  ToolCall,
  ToolContext,
  ToolSpec,
} from '../ports';
import { RunHistory } from '../interpreter/run-history';
import type { CallRecording } from '../replay/call-recording';

/** Simple in-process ports for engine unit tests (the product uses JetStream and real providers). */
export function recordingEnvironment(
  opts: {
    model?: ModelPort;
    functions?: Record<string, RegisteredFunction>;
    tools?: Record<string, InProcessTool>;
    signal?: AbortSignal;
    maxSteps?: number;
    /** A log to continue (a resumed run): its events come first and make up `env.history`. */
    prior?: readonly RunEvent[];
    results?: NodeResultStore;
    drain?: AbortSignal;
    retriever?: RetrieverPort;
    /** A replay's recording: calls it has are answered from it. */
    recording?: CallRecording;
  } = {},
) {
  const events: RunEvent[] = [...(opts.prior ?? [])];
  const tokens: Array<{ spanId: string; afterSeq: number; text: string }> = [];
  const redacted: Array<{ id: string; error: unknown }> = [];
  let span = 0;
  let correlation = 0;
  let request = 0;
  let tick = 0;
  const clockStart = (opts.prior ?? []).reduce((latest, e) => Math.max(latest, Date.parse(e.at) + 5), Date.UTC(2026, 0, 1));
  const env: RunEnvironment = {
    runId: 'run-1',
    rootSpanId: 'root-span',
    log: {
      async append(draft: RunEventDraft) {
        const seq = events.length + 1;
        events.push({ ...draft, runId: 'run-1', seq, at: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, seq)).toISOString() } as RunEvent);
        return seq;
      },
      durable: async () => undefined,
    },
    model: opts.model ?? scriptedModel([]),
    functions: { get: (name) => opts.functions?.[name] },
    tools: {
      specs: (names) =>
        names.map((name) => {
          if (!opts.tools?.[name]) throw new SpindleError('tool_not_found', `no tool "${name}"`);
          return { name, description: `the ${name} tool`, inputSchema: { type: 'object' } } satisfies ToolSpec;
        }),
      call: async (name, args, ctx) => {
        const tool = opts.tools?.[name];
        if (!tool) throw new SpindleError('tool_not_found', `no tool "${name}"`);
        return tool(args, ctx.signal, ctx);
      },
    },
    tokens: { push: (t) => tokens.push(t), flush: () => undefined },
    // A resumed run's clock goes on after its prior log, as a real one would.
    clock: { now: () => new Date(clockStart + 5 * tick++) },
    ids: { spanId: () => `span-${++span}`, correlationId: () => `corr-${++correlation}`, requestId: () => `req-${++request}` },
    signal: opts.signal ?? new AbortController().signal,
    maxSteps: opts.maxSteps ?? 100,
    reportRedacted: (id, error) => redacted.push({ id, error }),
    ...(opts.prior ? { history: new RunHistory(opts.prior) } : {}),
    ...(opts.results ? { results: opts.results } : {}),
    ...(opts.drain ? { drain: opts.drain } : {}),
    ...(opts.retriever ? { retriever: opts.retriever } : {}),
    ...(opts.recording ? { recording: opts.recording } : {}),
  };
  return { env, events, tokens, redacted };
}

export type InProcessTool = (args: Record<string, unknown>, signal: AbortSignal, ctx: ToolContext) => unknown;

/** A scripted reply that asks for tool calls instead of answering. */
export function toolCalls(...calls: Array<Omit<ToolCall, 'id'> & { id?: string }>): { toolCalls: ToolCall[] } {
  return { toolCalls: calls.map((c, i) => ({ id: c.id ?? `call_${c.name}_${i}`, name: c.name, arguments: c.arguments })) };
}

/** Replies in order; each reply may be text, tool calls or an error to throw. Records every request. */
export function scriptedModel(replies: Array<string | Error | { toolCalls: ToolCall[] }>): ModelPort & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    requests,
    async generate(request): Promise<ModelResult> {
      requests.push(request);
      const reply = replies[requests.length - 1];
      if (reply === undefined) throw new Error(`scripted model has no reply #${requests.length}`);
      if (reply instanceof Error) throw reply;
      // Requests are recorded as sent: copy the conversation, which the caller keeps appending to.
      requests[requests.length - 1] = { ...request, messages: [...request.messages] };
      if (typeof reply !== 'string')
        return {
          text: '',
          usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
          finishReason: 'tool-calls',
          toolCalls: reply.toolCalls,
        };
      if (request.stream) for (const word of reply.split(/(?<=\s)/)) request.onDelta?.(word, 'text');
      const words = reply.split(/\s+/).filter(Boolean).length;
      return { text: reply, usage: { inputTokens: 3, outputTokens: words, totalTokens: 3 + words }, finishReason: 'stop', toolCalls: [] };
    },
  };
}
