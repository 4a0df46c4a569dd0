import { isInfrastructureFault, type ErrorInfo } from '@spindle/contracts';
import { toErrorInfo } from '../interpreter/error-info';
import type { ToolCall } from '../ports';
import { placed, type NodeContext } from './node-executor';
import { openUserCodeChannel } from './user-code-channel';
import type { CallRecording } from '../replay/call-recording';
import { replayDiverged } from '../replay/replay-diverged';

export type ToolOutcome = { ok: true; result: unknown } | { ok: false; error: ErrorInfo };

/**
 * One tool call as a child span of the node: `tool.called` (name, arguments, call id) and
 * `tool.returned` (result or error, duration). A failure is returned, not thrown: for an agent
 * it is an observation the model sees. Only an abort (cancel, timeout) is thrown.
 */
export async function callTool(ctx: NodeContext, call: ToolCall): Promise<ToolOutcome> {
  // A call the log shows returned is not run again when the node is resumed.
  const recorded = ctx.replay?.toolOutcomes.get(call.id);
  if (recorded) return recorded;
  const { env } = ctx;
  const span = { nodeId: ctx.nodeId, spanId: env.ids.spanId(), parentSpanId: ctx.spanId, path: ctx.path, ...placed(ctx) };
  const started = env.clock.now().getTime();
  await env.log.append({ type: 'tool.called', ...span, data: { name: call.name, callId: call.id, arguments: call.arguments } });
  if (env.recording) {
    const served = await serveRecordedTool(ctx, env.recording, span, call, started);
    if (served) return served;
  }
  // The call leaves the process: the log must already say it was made, and everything that led to it.
  await env.log.durable();
  let outcome: ToolOutcome;
  const voice = openUserCodeChannel(ctx, { kind: 'tool', name: call.name, callId: call.id, parentSpanId: span.spanId });
  try {
    const result = await env.tools.call(call.name, call.arguments, {
      ...voice,
      runId: env.runId,
      nodeId: ctx.nodeId,
      callId: call.id,
      signal: ctx.signal,
    });
    outcome = { ok: true, result: result ?? null };
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason ?? error;
    if (isInfrastructureFault(error)) throw error;
    outcome = { ok: false, error: toErrorInfo(error, 'tool_failed', () => env.ids.correlationId(), env.reportRedacted) };
  } finally {
    // What the tool said is in the log before its return.
    await voice.close();
  }
  const durationMs = env.clock.now().getTime() - started;
  await env.log.append({
    type: 'tool.returned',
    ...span,
    data: { name: call.name, callId: call.id, ...(outcome.ok ? { result: outcome.result } : { error: outcome.error }), durationMs },
  });
  return outcome;
}

/**
 * A replay's tool call: the recording's outcome when it has the same call (the tool is not run),
 * else the divergence, which stops the run unless the replay makes such calls (undefined).
 */
async function serveRecordedTool(
  ctx: NodeContext,
  recording: CallRecording,
  span: { nodeId: string; spanId: string; parentSpanId: string; path: string },
  call: ToolCall,
  startedAt: number,
): Promise<ToolOutcome | undefined> {
  const { env } = ctx;
  const served = recording.takeTool(call.name, call.arguments);
  if (!served && recording.onDivergence === 'call') return undefined;
  const returned = (data: { result: unknown } | { error: ErrorInfo }, replayedFrom?: { runId: string; seq: number }) =>
    env.log.append({
      type: 'tool.returned',
      ...span,
      data: {
        name: call.name,
        callId: call.id,
        ...data,
        durationMs: env.clock.now().getTime() - startedAt,
        ...(replayedFrom && { replayedFrom }),
      },
    });
  if (served) {
    const outcome = served.answer;
    await returned(outcome.ok ? { result: outcome.result } : { error: outcome.error }, { runId: recording.sourceRunId, seq: served.seq });
    return outcome;
  }
  const error = replayDiverged(`run ${recording.sourceRunId} never made this tool call: the replay stops at the divergence`);
  await returned({ error: { code: error.code, message: error.message } });
  throw error;
}
