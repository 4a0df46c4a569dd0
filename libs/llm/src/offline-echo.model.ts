import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { createHash } from 'node:crypto';
import { sleep } from '@spindle/contracts';

/**
 * `offline:echo`: a network-free model that answers with the last user message (its text, then a
 * line per file: media type, size, sha256). It is a real
 * `LanguageModelV3`, so it runs through the same `streamText`/`generateText` path (usage, finish
 * reason, abort, error parts) as the HTTP providers; demos and tests exercise the real code.
 *
 * Tokens are counted as whitespace-separated words (not a real tokenizer; enough for budgets and
 * demos): input = words of the system prompt and every message, output = words of the reply.
 */
export interface OfflineEchoOptions {
  /** Wait this long before each streamed chunk, so demos can show streaming. Default 0. */
  chunkDelayMs?: number;
}

export const OFFLINE_ECHO_MODEL_ID = 'echo';

export class OfflineEchoModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'offline';
  readonly modelId = OFFLINE_ECHO_MODEL_ID;
  readonly supportedUrls = {};
  private readonly chunkDelayMs: number;

  constructor(options: OfflineEchoOptions = {}) {
    this.chunkDelayMs = Math.max(0, options.chunkDelayMs ?? 0);
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    options.abortSignal?.throwIfAborted();
    const text = lastUserText(options.prompt);
    return {
      content: [{ type: 'text', text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: promptUsage(options.prompt, text),
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const signal = options.abortSignal;
    signal?.throwIfAborted();
    const text = lastUserText(options.prompt);
    const chunks = splitWords(text);
    const delayMs = this.chunkDelayMs;
    let i = 0;
    // A pull-based stream: the next chunk is produced only when the consumer asks for it, so
    // a slow consumer applies backpressure and an abort stops the producer at the next chunk.
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'text-start', id: '0' });
      },
      async pull(controller) {
        try {
          if (i < chunks.length) {
            await sleep(delayMs, signal);
            signal?.throwIfAborted();
            controller.enqueue({ type: 'text-delta', id: '0', delta: chunks[i++] });
            return;
          }
          controller.enqueue({ type: 'text-end', id: '0' });
          controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: promptUsage(options.prompt, text) });
          controller.close();
        } catch (e) {
          controller.error(e); // the abort reason, exactly as given
        }
      },
    });
    return { stream };
  }
}

/** Word plus its following whitespace (leading whitespace stays on the first chunk). */
export function splitWords(text: string): string[] {
  return text.match(/^\s*\S+\s*|\S+\s*/g) ?? (text === '' ? [] : [text]);
}

export function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function partsText(content: string | ReadonlyArray<{ type: string; text?: string }>): string {
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join(' ');
}

/** The last user message's text, then one line per file it carries: what the model saw, checkable offline. */
function lastUserText(prompt: LanguageModelV3Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i];
    if (m.role !== 'user') continue;
    const text = m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
    const files = m.content.flatMap((p) => (p.type === 'file' ? [describeFile(p.data, p.mediaType)] : []));
    return [text, ...files].filter((line) => line !== '').join('\n');
  }
  return '';
}

/** `[file image/png, 68 bytes, sha256 <hex>]`; a URL (never sent by the port) is named, not fetched. */
export function describeFile(data: Uint8Array | string | URL, mediaType: string): string {
  if (data instanceof URL) return `[file ${mediaType}, at ${data.href}]`;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'base64') : data;
  return `[file ${mediaType}, ${bytes.byteLength} bytes, sha256 ${createHash('sha256').update(bytes).digest('hex')}]`;
}

/** Word counts of the whole prompt and of the reply, as offline models report usage. */
export function promptUsage(prompt: LanguageModelV3Prompt, reply: string): LanguageModelV3Usage {
  // The SDK puts `system` into the prompt as a system message, so this covers system + messages.
  const input = prompt.reduce((n, m) => n + countWords(partsText(m.content as string | Array<{ type: string; text?: string }>)), 0);
  const output = countWords(reply);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}
