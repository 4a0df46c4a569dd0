import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Usage } from '@spindle/contracts';
import type { ModelPort, ModelRequest, ModelResult } from '@spindle/engine';
import { generateText, streamText, type LanguageModelUsage } from 'ai';
import type { LlmConfig } from './llm-config';
import { createModelResolver } from './model-resolver';
import { toModelError } from './provider-errors';

/**
 * The engine's `ModelPort` over the Vercel AI SDK. `request.model` is `provider:model`; every
 * provider (including `offline:echo`) goes through `generateText` / `streamText`, so usage,
 * finish reasons, aborts and errors behave the same whichever model a workflow names.
 */
export function createModelPort(config: LlmConfig): ModelPort {
  const resolve = createModelResolver(config);
  const secrets = [config.openai?.apiKey, config.anthropic?.apiKey, config.compatible?.apiKey];

  return {
    async generate(request: ModelRequest): Promise<ModelResult> {
      // Rejects with the caller's own reason, like every later abort point does.
      request.signal.throwIfAborted();
      const model = resolve(request.model); // unknown_model: thrown as is
      try {
        return request.stream ? await streamOnce(model, request) : await generateOnce(model, request);
      } catch (error) {
        if (error instanceof CallbackError) throw error.original;
        throw toModelError(error, { model: request.model, signal: request.signal, secrets });
      }
    },
  };
}

function callOptions(model: LanguageModelV3, request: ModelRequest) {
  return {
    model,
    system: request.system,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    abortSignal: request.signal,
    // The engine owns retries (with its own events and budgets); SDK retries would hide them.
    maxRetries: 0,
  };
}

async function generateOnce(model: LanguageModelV3, request: ModelRequest): Promise<ModelResult> {
  const result = await generateText(callOptions(model, request));
  return { text: result.text, usage: toUsage(result.totalUsage), finishReason: result.finishReason };
}

/**
 * streamText never rejects: failures become `error` parts of the stream (and are otherwise only
 * logged by the default `onError`). So the full stream is consumed here and the first `error`
 * part is thrown; an `abort` part (or a stream that just ends after an abort) rejects with the
 * signal's reason.
 */
async function streamOnce(model: LanguageModelV3, request: ModelRequest): Promise<ModelResult> {
  const result = streamText({
    ...callOptions(model, request),
    onError: () => undefined, // handled below via the `error` part; silences console.error
  });
  let text = '';
  let usage: LanguageModelUsage | undefined;
  let finishReason: string | undefined;
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'text-delta':
        text += part.text;
        emitDelta(request, part.text);
        break;
      case 'error':
        throw part.error;
      case 'abort':
        throw request.signal.reason ?? new Error('aborted');
      case 'finish':
        usage = part.totalUsage;
        finishReason = part.finishReason;
        break;
      default:
        break;
    }
  }
  request.signal.throwIfAborted();
  return { text, usage: toUsage(usage), finishReason };
}

/** Marks errors thrown by the caller's `onDelta`, so they are not reported as provider errors. */
class CallbackError extends Error {
  constructor(readonly original: unknown) {
    super('onDelta failed');
  }
}

function emitDelta(request: ModelRequest, delta: string): void {
  if (delta === '' || request.onDelta === undefined) return;
  try {
    request.onDelta(delta);
  } catch (e) {
    throw new CallbackError(e);
  }
}

/** Providers may omit counts (e.g. a server ignoring include_usage): missing counts are 0. */
function toUsage(usage: LanguageModelUsage | undefined): Usage {
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  return { inputTokens, outputTokens, totalTokens: usage?.totalTokens ?? inputTokens + outputTokens };
}
