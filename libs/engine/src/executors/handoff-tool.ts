import { handoffTarget } from '../definition/handoff-names';
import type { ToolCall, ToolSpec } from '../ports';
import { placed, type NodeContext } from './node-executor';

export function handoffToolSpec(name: string): ToolSpec {
  const agent = handoffTarget(name);
  return {
    name,
    description:
      `Hand the conversation over to the "${agent}" agent, which acts next. ` +
      `Call this instead of answering when "${agent}" should take over; your turn ends.`,
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: `What "${agent}" needs to know to take over` } },
      required: ['message'],
      additionalProperties: false,
    },
  };
}

/** What a handoff writes to state: the agent that acts next and the note it gets. */
export interface HandoffDelta extends Record<string, unknown> {
  next_agent: string;
  handoff_note: string;
}

/**
 * Records the handoff as a tool span like any other (`tool.called`, `tool.returned`), so a trace
 * shows who passed control to whom and why, and returns the state it writes.
 */
export async function handOff(ctx: NodeContext, call: ToolCall): Promise<HandoffDelta> {
  const { env } = ctx;
  const span = { nodeId: ctx.nodeId, spanId: env.ids.spanId(), parentSpanId: ctx.spanId, path: ctx.path, ...placed(ctx) };
  const started = env.clock.now().getTime();
  const next = handoffTarget(call.name);
  // A model that leaves out the message still hands off; the note is just empty.
  const note = typeof call.arguments.message === 'string' ? call.arguments.message : '';
  await env.log.append({ type: 'tool.called', ...span, data: { name: call.name, callId: call.id, arguments: call.arguments } });
  const result = { handed_off_to: next };
  await env.log.append({
    type: 'tool.returned',
    ...span,
    data: { name: call.name, callId: call.id, result, durationMs: env.clock.now().getTime() - started },
  });
  return { next_agent: next, handoff_note: note };
}
