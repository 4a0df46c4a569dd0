import { messageHash } from '../hashing/message-hash';
import type { ModelScript } from '../definition/model-script.schema';
import type { Usage } from '@spindle/contracts';
import type { ChatMessage, ModelResult, ToolSpec } from '../ports';
import { toErrorInfo } from '../interpreter/error-info';
import { placed, type NodeContext } from './node-executor';
import { callAttachments } from './attachments';
import type { CallRecording } from '../replay/call-recording';
import type { ModelStartedData } from '../replay/call-fingerprints';
import { replayDiverged } from '../replay/replay-diverged';

type ModelSpan = { nodeId: string; spanId: string; parentSpanId: string; path: string; iteration?: number; branchId?: string };

export interface ModelCallInput {
  model: string;
  system?: string;
  /** The whole conversation sent to the model. */
  messages: ChatMessage[];
  /** How many of `messages` are new since this node's previous model call: only they are logged. */
  newMessages: number;
  tools?: ToolSpec[];
  stream: boolean;
  /** The node's `script`, for `offline:script`. */
  script?: ModelScript;
}

/**
 * One model call as a child span of the node: `model.started` (with the messages this call
 * added, not the whole history) and `model.completed` (text, tool calls, usage, the run's
 * running totals) or `model.failed`. Streamed text goes to the token sink.
 */
export async function callModel(ctx: NodeContext, input: ModelCallInput): Promise<ModelResult> {
  // A resumed node gets the calls it already made from its log: the provider is not called again.
  const recorded = ctx.replay?.nextModelResult();
  if (recorded) return recorded;
  const { env } = ctx;
  const span = { nodeId: ctx.nodeId, spanId: env.ids.spanId(), parentSpanId: ctx.spanId, path: ctx.path, ...placed(ctx) };
  const started = env.clock.now().getTime();
  const earlier = input.messages.slice(0, input.messages.length - input.newMessages);
  const added = input.messages.slice(input.messages.length - input.newMessages);
  const attachments = callAttachments(input.messages);
  const onlyPrompt = added.length === 1 && added[0].role === 'user' && input.messages.length === 1;
  const startedData = {
    model: input.model,
    ...(input.system !== undefined ? { system: input.system } : {}),
    // The log stays linear in the conversation: new messages in full, earlier ones by hash.
    ...(onlyPrompt
      ? { prompt: (added[0] as { content: string }).content }
      : { messages: added.map((m) => ({ ...m, hash: messageHash(m) })), history: earlier.map(messageHash) }),
    ...(input.tools?.length ? { tools: input.tools.map((t) => t.name) } : {}),
    ...(attachments.length ? { attachments } : {}),
    stream: input.stream,
  };
  const callSeq = await env.log.append({ type: 'model.started', ...span, data: startedData });
  if (env.recording) {
    const served = await serveRecordedCall(ctx, env.recording, span, startedData, started);
    if (served) return served;
  }
  // The call leaves the process: the log must already say it was made, and everything that led to it.
  await env.log.durable();
  let result: ModelResult;
  try {
    result = await env.model.generate({
      model: input.model,
      system: input.system,
      messages: input.messages,
      tools: input.tools?.length ? input.tools : undefined,
      ...(input.script !== undefined ? { script: input.script } : {}),
      stream: input.stream,
      signal: ctx.signal,
      onDelta: input.stream
        ? (text, part) => env.tokens.push({ nodeId: ctx.nodeId, spanId: ctx.spanId, afterSeq: ctx.startedSeq, callSeq, part, text })
        : undefined,
    });
  } catch (error) {
    env.tokens.flush(ctx.spanId);
    if (ctx.signal.aborted) throw ctx.signal.reason ?? error;
    const info = toErrorInfo(error, 'provider_error', () => env.ids.correlationId(), env.reportRedacted);
    await env.log.append({
      type: 'model.failed',
      ...span,
      data: { model: input.model, error: info, durationMs: env.clock.now().getTime() - started },
    });
    throw error;
  }
  env.tokens.flush(ctx.spanId);
  const runUsage = ctx.usage.add(result.usage);
  // Outside the provider's try: failing to record the answer is the log's fault, never the provider's.
  await env.log.append({
    type: 'model.completed',
    ...span,
    data: completedData(input.model, result, env.clock.now().getTime() - started, runUsage),
  });
  return result;
}

/** What `model.completed` says of an answer: the text, tool calls, usage and the run's running totals. */
function completedData(model: string, result: ModelResult, durationMs: number, runUsage: Usage) {
  return {
    model,
    text: result.text,
    ...(result.reasoning ? { reasoning: result.reasoning } : {}),
    ...(result.toolCalls.length ? { toolCalls: result.toolCalls } : {}),
    usage: result.usage,
    finishReason: result.finishReason,
    ...(result.responseModel ? { responseModel: result.responseModel } : {}),
    durationMs,
    runUsage,
  };
}

/**
 * A replay's model call: the recording's answer when it has the same call (logged with where it
 * came from, its usage not spent again), else the divergence, which stops the run unless the
 * replay was asked to make such calls (undefined: the caller makes it).
 */
async function serveRecordedCall(
  ctx: NodeContext,
  recording: CallRecording,
  span: ModelSpan,
  startedData: ModelStartedData,
  startedAt: number,
): Promise<ModelResult | undefined> {
  const { env } = ctx;
  const served = recording.takeModel(startedData);
  const durationMs = () => env.clock.now().getTime() - startedAt;
  if (served) {
    const result = served.answer;
    await env.log.append({
      type: 'model.completed',
      ...span,
      data: {
        ...completedData(startedData.model, result, durationMs(), ctx.usage.snapshot()),
        replayedFrom: { runId: recording.sourceRunId, seq: served.seq },
      },
    });
    return result;
  }
  if (recording.onDivergence === 'call') return undefined;
  const error = replayDiverged(`run ${recording.sourceRunId} never made this model call: the replay stops at the divergence`);
  await env.log.append({
    type: 'model.failed',
    ...span,
    data: { model: startedData.model, error: { code: error.code, message: error.message }, durationMs: durationMs() },
  });
  throw error;
}
