import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { closedSignal, FakeHttpServer, readBody, sendJson, splitWords, wordCount } from './fake-http';

/**
 * A real HTTP server speaking Anthropic's Messages API (`POST /v1/messages`), enough for a text
 * reply with or without streaming, recording every request body: the Anthropic adapter is tested
 * over the wire (content blocks, base64 sources) instead of against a mocked `fetch`.
 */

/** The Messages API request body, loosely typed: tests assert on what was sent. */
export interface FakeAnthropicRequestBody {
  model?: string;
  stream?: boolean;
  system?: unknown;
  messages?: Array<{ role: string; content: unknown }>;
  [key: string]: unknown;
}

export interface FakeAnthropicReply {
  text: string;
  /** HTTP status; >= 400 answers Anthropic's `{ type: 'error', error }` body. */
  status?: number;
}

export type FakeAnthropicReplyFn = (body: FakeAnthropicRequestBody) => FakeAnthropicReply | Promise<FakeAnthropicReply>;

export interface FakeAnthropicCall {
  path: string;
  body: FakeAnthropicRequestBody;
  headers: IncomingHttpHeaders;
}

/** Content is a string or a list of blocks; only text blocks count as words. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (typeof b?.text === 'string' ? b.text : '')).join(' ');
  return '';
}

const defaultReply: FakeAnthropicReplyFn = (body) => {
  const lastUser = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  return { text: `echo: ${contentText(lastUser?.content)}` };
};

export class FakeAnthropicServer extends FakeHttpServer {
  readonly calls: FakeAnthropicCall[] = [];

  constructor(public reply: FakeAnthropicReplyFn = defaultReply) {
    super('FakeAnthropicServer');
  }

  protected errorBody(message: string): unknown {
    return { type: 'error', error: { type: 'api_error', message } };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/messages') return sendJson(res, 404, this.errorBody(`no route for ${req.method} ${path}`));
    let body: FakeAnthropicRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as FakeAnthropicRequestBody;
    } catch {
      return sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'invalid JSON body' } });
    }
    this.calls.push({ path, body, headers: req.headers });
    const reply = await this.reply(body);
    if ((reply.status ?? 200) >= 400) return sendJson(res, reply.status ?? 500, this.errorBody(`fake error ${reply.status}`));
    const inputTokens = (body.messages ?? []).reduce((n, m) => n + wordCount(contentText(m.content)), wordCount(contentText(body.system)));
    const message = {
      id: `msg_fake_${this.calls.length}`,
      type: 'message',
      role: 'assistant',
      model: body.model ?? 'fake',
      stop_sequence: null,
    };
    const usage = { input_tokens: inputTokens, output_tokens: wordCount(reply.text) };
    if (!body.stream) {
      return sendJson(res, 200, { ...message, content: [{ type: 'text', text: reply.text }], stop_reason: 'end_turn', usage });
    }
    const closed = closedSignal(res);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const events = [
      {
        type: 'message_start',
        message: { ...message, content: [], stop_reason: null, usage: { input_tokens: inputTokens, output_tokens: 0 } },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ...splitWords(reply.text).map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output_tokens } },
      { type: 'message_stop' },
    ];
    for (const event of events) {
      if (closed.aborted) return; // the client went away (e.g. aborted): stop writing
      res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    }
    res.end();
  }
}
