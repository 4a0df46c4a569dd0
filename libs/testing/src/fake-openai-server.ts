import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { sleep } from '@spindle/contracts';
import { closedSignal, FakeHttpServer, readBody, sendJson, splitWords, wordCount } from './fake-http';

/**
 * A real HTTP server speaking the OpenAI chat-completions protocol, so provider adapters are
 * tested over the wire (request shape, SSE parsing, usage chunk, HTTP errors) instead of against
 * a mocked `fetch`. Plain node:http and no Jest imports: a `.js` child process can run it too.
 */

/** Token counts in the OpenAI wire format. */
export interface FakeOpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

/** A tool call the scripted reply makes; `id` defaults to `call_<request>_<index>`. */
export interface FakeOpenAIToolCall {
  id?: string;
  name: string;
  arguments: object;
}

/** What the server answers to one request. */
export interface FakeOpenAIReply {
  text: string;
  /** Answer with these tool calls (after any `text`) and finish_reason `tool_calls`. */
  toolCalls?: FakeOpenAIToolCall[];
  /** Defaults to whitespace word counts of the request messages and of `text`. */
  usage?: FakeOpenAIUsage;
  /** HTTP status; >= 400 answers `{ error: { message } }` instead of a completion. */
  status?: number;
  /** With a status >= 400, the body's message; else HTTP 500 (non-streaming) or an SSE error event after the text. */
  error?: string;
  /** Wait this long before the body (non-streaming) or before each SSE chunk (streaming). */
  delayMs?: number;
  /** Reasoning shown before the answer, as DeepSeek-style servers send it (`reasoning_content`). */
  reasoning?: string;
  /** Streaming: after this many chunks, wait for `until` before the rest (a test holds a reply half-said). */
  pauseAfter?: { chunks: number; until: Promise<void> };
}

/** The OpenAI chat-completions request body, loosely typed: tests assert on what was sent. */
export interface FakeOpenAIRequestBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: Array<{ role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  [key: string]: unknown;
}

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type FakeOpenAIReplyFn = (body: FakeOpenAIRequestBody) => FakeOpenAIReply | Promise<FakeOpenAIReply>;

export interface FakeOpenAICall {
  path: string;
  body: FakeOpenAIRequestBody;
  headers: IncomingHttpHeaders;
}

/** Message content is a string or an array of `{ type: 'text', text }` parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join(' ');
  return '';
}

const defaultReply: FakeOpenAIReplyFn = (body) => {
  const lastUser = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  return { text: `echo: ${contentText(lastUser?.content)}` };
};

export class FakeOpenAIServer extends FakeHttpServer {
  readonly calls: FakeOpenAICall[] = [];
  /** `/embeddings`: the dimension of every vector answered (a test sets another to see a mismatch refused). */
  embeddingDimensions = 8;

  /** What the server answers; tests may swap it between requests. */
  constructor(public reply: FakeOpenAIReplyFn = defaultReply) {
    super('FakeOpenAIServer');
  }

  get callCount(): number {
    return this.calls.length;
  }

  protected errorBody(message: string): unknown {
    return errorBody(message);
  }

  /** The request's JSON body, recorded as a call; undefined once a 400 for a body that is not JSON has been sent. */
  private async recordedBody(req: IncomingMessage, res: ServerResponse, path: string): Promise<FakeOpenAIRequestBody | undefined> {
    let body: FakeOpenAIRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as FakeOpenAIRequestBody;
    } catch {
      sendJson(res, 400, errorBody('invalid JSON body'));
      return undefined;
    }
    this.calls.push({ path, body, headers: req.headers });
    return body;
  }

  /** OpenAI's `/embeddings`: `{ input: string[] }` → one vector each, with usage; the call is recorded like a completion. */
  private async embeddings(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const body = await this.recordedBody(req, res, path);
    if (!body) return;
    const inputs = Array.isArray(body.input) ? (body.input as unknown[]).map(String) : [String(body.input ?? '')];
    const tokens = inputs.reduce((n, t) => n + wordCount(t), 0);
    return sendJson(res, 200, {
      object: 'list',
      model: body.model ?? 'fake',
      data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text, this.embeddingDimensions) })),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && (path === '/v1/embeddings' || path === '/embeddings')) return this.embeddings(req, res, path);
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      return sendJson(res, 404, errorBody(`no route for ${req.method} ${path}`));
    }
    const body = await this.recordedBody(req, res, path);
    if (!body) return;
    const reply = await this.reply(body);
    const closed = closedSignal(res);
    const { completion, events } = wireReply(reply, body, this.calls.length);
    const status = reply.status ?? 200;
    if (status >= 400 || !body.stream) {
      await sleep(reply.delayMs ?? 0, closed);
      if (status >= 400) return sendJson(res, status, errorBody(reply.error ?? `fake error ${status}`));
      return reply.error !== undefined ? sendJson(res, 500, errorBody(reply.error)) : sendJson(res, status, completion);
    }
    res.writeHead(status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const [i, data] of events.entries()) {
      if (i === reply.pauseAfter?.chunks) await reply.pauseAfter.until;
      await sleep(reply.delayMs ?? 0, closed);
      if (closed.aborted) return; // the client went away (e.g. aborted): stop writing
      res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    }
    res.end();
  }
}

/** One deterministic unit-free vector per input: its first component is the input's length, so a test can tell them apart. */
function fakeEmbedding(text: string, dimensions: number): number[] {
  return Array.from({ length: dimensions }, (_, i) =>
    i === 0 ? text.length : ((text.charCodeAt(i % Math.max(1, text.length)) || 1) % 7) + 1,
  );
}

/**
 * The reply as a `chat.completion` body and as the SSE `data:` payloads of a stream: word chunks,
 * tool-call deltas, then an error event, or the finish chunk, the usage chunk (if asked) and [DONE].
 */
function wireReply(reply: FakeOpenAIReply, body: FakeOpenAIRequestBody, requestNo: number): { completion: object; events: unknown[] } {
  const promptWords = (body.messages ?? []).reduce((n, m) => n + wordCount(contentText(m.content)), 0);
  const usage = reply.usage ?? { prompt_tokens: promptWords, completion_tokens: wordCount(reply.text) };
  const fullUsage = { ...usage, total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens };
  const base = { id: `chatcmpl-fake-${requestNo}`, created: Math.floor(Date.now() / 1000), model: body.model ?? 'fake' };
  const toolCalls = (reply.toolCalls ?? []).map((c, i): WireToolCall => ({
    id: c.id ?? `call_${requestNo}_${i}`,
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
  const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  // Like OpenAI: content is null when the reply is only tool calls.
  const message =
    toolCalls.length > 0
      ? { role: 'assistant', content: reply.text || null, tool_calls: toolCalls }
      : { role: 'assistant', content: reply.text };
  if (reply.reasoning !== undefined) Object.assign(message, { reasoning_content: reply.reasoning });
  const completion = { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage: fullUsage };
  const chunk = (delta: object, finishReason: string | null) => ({
    ...base,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const deltas = [
    ...splitWords(reply.reasoning ?? '').map((piece) => ({ reasoning_content: piece })),
    ...splitWords(reply.text).map((piece) => ({ content: piece })),
    ...toolCallDeltas(toolCalls),
  ];
  const events: unknown[] = deltas.map((delta, i) => chunk(i === 0 ? { role: 'assistant', ...delta } : delta, null));
  if (reply.error !== undefined) return { completion, events: [...events, errorBody(reply.error)] };
  events.push(chunk({}, finish));
  if (body.stream_options?.include_usage === true) events.push({ ...base, object: 'chat.completion.chunk', choices: [], usage: fullUsage });
  return { completion, events: [...events, '[DONE]'] };
}

/** Like OpenAI: index, id, type and name first, then the arguments in two halves clients must join. */
function toolCallDeltas(calls: WireToolCall[]): object[] {
  return calls.flatMap(({ id, type, function: { name, arguments: args } }, index) => {
    const halves = [args.slice(0, Math.ceil(args.length / 2)), args.slice(Math.ceil(args.length / 2))].filter((a) => a !== '');
    return [
      { tool_calls: [{ index, id, type, function: { name, arguments: '' } }] },
      ...halves.map((part) => ({ tool_calls: [{ index, function: { arguments: part } }] })),
    ];
  });
}

/** The OpenAI error shape, which the SDKs parse into their error messages. */
const errorBody = (message: string) => ({ error: { message, type: 'server_error', code: null } });
