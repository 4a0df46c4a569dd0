import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { FileRef, TokenPart, Usage } from '@spindle/contracts';
import { assertModelTakes, type ChatMessage, type ModelPort, type ModelRequest, type ModelResult, type ToolCall } from '@spindle/engine';
import { generateText, stepCountIs, streamText, type LanguageModelUsage, type ModelMessage } from 'ai';
import type { LlmConfig } from './llm-config';
import { toModelMessages, toToolCall, toToolSet, type FileReader } from './message-mapper';
import { costUsd, createPriceLookup } from './model-prices';
import { createModelResolver } from './model-resolver';
import { toModelError } from './provider-errors';

/**
 * The engine's `ModelPort` over the Vercel AI SDK. `request.model` is `provider:model`; every
 * provider (including `offline:echo` and `offline:script`) goes through `generateText` / `streamText`, so usage,
 * finish reasons, aborts and errors behave the same whichever model a workflow names.
 *
 * Tools are offered to the model but never run here: each `generate` is exactly one model call,
 * returning any tool calls for the engine to execute and send back in the next request.
 */
export function createModelPort(config: LlmConfig, hooks: ModelPortHooks = {}): ModelPort {
  const resolve = createModelResolver(config);
  const secrets = [config.openai?.apiKey, config.anthropic?.apiKey, config.compatible?.apiKey];
  // Built (and validated) once, so a bad price table fails at startup, not on the first call.
  const priceOf = createPriceLookup(
    config.prices,
    config.pricesFile === undefined ? undefined : { path: config.pricesFile, onError: hooks.onPriceFileError },
  );

  return {
    async generate(request: ModelRequest): Promise<ModelResult> {
      // Rejects with the caller's own reason, like every later abort point does.
      request.signal.throwIfAborted();
      const model = resolve(request.model, request.script); // unknown_model: thrown as is
      // Before any provider is called: a file the model cannot take, or whose bytes are gone, is the caller's to fix.
      assertModelTakes(request.model, sentFiles(request.messages));
      const messages = await toModelMessages(request.messages, hooks.readFile);
      try {
        const result = request.stream ? await streamOnce(model, request, messages) : await generateOnce(model, request, messages);
        const price = priceOf(request.model);
        // An unpriced call says so: its cost is unknown, and totals must not read it as free.
        if (price === undefined) return { ...result, usage: { ...result.usage, unpricedCalls: 1 } };
        const cost = costUsd(result.usage, price);
        return { ...result, usage: { ...result.usage, costUsd: cost }, costUsd: cost };
      } catch (error) {
        if (error instanceof CallbackError) throw error.original;
        throw toModelError(error, { model: request.model, signal: request.signal, secrets });
      }
    },
  };
}

/** Every file the request's messages carry. */
function sentFiles(messages: readonly ChatMessage[]): FileRef[] {
  return messages.flatMap((m) => (m.role === 'assistant' ? [] : (m.attachments ?? [])));
}

function callOptions(model: LanguageModelV3, request: ModelRequest, messages: ModelMessage[]) {
  return {
    model,
    system: request.system,
    messages,
    tools: toToolSet(request.tools),
    // One step is the SDK default, but it is what keeps the SDK from looping (it would continue
    // after e.g. a call to an unknown tool, which it answers itself with a tool-error), so it is
    // pinned here rather than left to a default that could change.
    stopWhen: stepCountIs(1),
    abortSignal: request.signal,
    // The engine owns retries (with its own events and budgets); SDK retries would hide them.
    maxRetries: 0,
  };
}

async function generateOnce(model: LanguageModelV3, request: ModelRequest, messages: ModelMessage[]): Promise<ModelResult> {
  const result = await generateText(callOptions(model, request, messages));
  return {
    text: result.text,
    ...(result.reasoningText ? { reasoning: result.reasoningText } : {}),
    usage: toUsage(result.totalUsage),
    finishReason: result.finishReason,
    ...responseModelOf(result.response.modelId),
    toolCalls: result.toolCalls.map(toToolCall),
  };
}

function responseModelOf(modelId: string | undefined): { responseModel?: string } {
  return modelId ? { responseModel: modelId } : {};
}

/**
 * streamText never rejects: failures become `error` parts of the stream (and are otherwise only
 * logged by the default `onError`). So the full stream is consumed here and the first `error`
 * part is thrown; an `abort` part (or a stream that just ends after an abort) rejects with the
 * signal's reason.
 */
async function streamOnce(model: LanguageModelV3, request: ModelRequest, messages: ModelMessage[]): Promise<ModelResult> {
  const result = streamText({
    ...callOptions(model, request, messages),
    onError: () => undefined, // handled below via the `error` part; silences console.error
  });
  let text = '';
  let reasoning = '';
  let usage: LanguageModelUsage | undefined;
  let finishReason: string | undefined;
  let responseModel: string | undefined;
  const toolCalls: ToolCall[] = [];
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'text-delta':
        text += part.text;
        emitDelta(request, part.text, 'text');
        break;
      case 'reasoning-delta':
        reasoning += part.text;
        emitDelta(request, part.text, 'reasoning');
        break;
      case 'tool-call':
        toolCalls.push(toToolCall(part));
        break;
      case 'error':
        throw part.error;
      case 'abort':
        throw request.signal.reason ?? new Error('aborted');
      case 'finish-step':
        responseModel = part.response.modelId;
        break;
      case 'finish':
        usage = part.totalUsage;
        finishReason = part.finishReason;
        break;
      default:
        break;
    }
  }
  request.signal.throwIfAborted();
  return { text, ...(reasoning ? { reasoning } : {}), usage: toUsage(usage), finishReason, ...responseModelOf(responseModel), toolCalls };
}

export interface ModelPortHooks {
  /** A changed price file could not be used (the previous table stays in use). */
  onPriceFileError?: (error: Error) => void;
  /** The bytes of a file a message carries (the runner's reads the run log's file store); without it files are refused. */
  readFile?: FileReader;
}

/** Marks errors thrown by the caller's `onDelta`, so they are not reported as provider errors. */
class CallbackError extends Error {
  constructor(readonly original: unknown) {
    super('onDelta failed');
  }
}

function emitDelta(request: ModelRequest, delta: string, part: TokenPart): void {
  if (delta === '' || request.onDelta === undefined) return;
  try {
    request.onDelta(delta, part);
  } catch (e) {
    throw new CallbackError(e);
  }
}

/**
 * Providers may omit counts (e.g. a server ignoring include_usage): missing counts are 0. Cached
 * and reasoning tokens (parts of input and output) are kept where the provider reports them.
 */
function toUsage(usage: LanguageModelUsage | undefined): Usage {
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  const details = {
    cachedInputTokens: usage?.inputTokenDetails?.cacheReadTokens,
    cacheWriteTokens: usage?.inputTokenDetails?.cacheWriteTokens,
    reasoningTokens: usage?.outputTokenDetails?.reasoningTokens,
  };
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage?.totalTokens ?? inputTokens + outputTokens,
    ...Object.fromEntries(Object.entries(details).filter(([, n]) => typeof n === 'number' && n > 0)),
  };
}
