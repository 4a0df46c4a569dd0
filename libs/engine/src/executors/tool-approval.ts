import { canonicalJson, SpindleError, type RunEventOf } from '@spindle/contracts';
import { sha256Hex } from '../hashing/sha256';
import type { AgentNode } from '../definition/workflow-definition.schema';
import { RunSuspended } from '../interpreter/suspension';
import type { ToolCall } from '../ports';
import { isHandoffTool } from '../definition/handoff-names';
import { placed, type NodeContext } from './node-executor';

/** What an approval binds to besides the call id and name: a hash of the exact arguments. */
export function toolArgumentsHash(args: Record<string, unknown>): string {
  return sha256Hex(canonicalJson(args));
}

export type ApprovalDecision = RunEventOf<'approval.resolved'>['data'];

function needsApproval(node: AgentNode, call: ToolCall): boolean {
  if (isHandoffTool(call.name) || node.approval === false) return false;
  return node.approval === true || node.approval.includes(call.name);
}

/**
 * Gates a reply's tool calls on a person's approval. Calls that need it and have no decision
 * yet get an `approval.requested` each (id, name, arguments and their hash, so the approval is
 * bound to exactly this call) and the run suspends. When it resumes, each decision is checked
 * against the call it was for: a decision whose binding does not match is never applied.
 */
export async function approveToolCalls(
  node: AgentNode,
  ctx: NodeContext,
  calls: readonly ToolCall[],
): Promise<Map<string, ApprovalDecision>> {
  const decisions = new Map<string, ApprovalDecision>();
  const pending: string[] = [];
  for (const call of calls) {
    if (!needsApproval(node, call) || ctx.replay?.toolOutcomes.has(call.id)) continue;
    const argumentsHash = toolArgumentsHash(call.arguments);
    const asked = ctx.replay?.approvalRequests.get(call.id);
    if (!asked) {
      pending.push(await requestApproval(node, ctx, call, argumentsHash));
      continue;
    }
    const answer = ctx.env.history?.answerTo(asked.data.requestId);
    if (!answer || answer.type !== 'approval.resolved') {
      pending.push(asked.data.requestId);
      continue;
    }
    if (answer.data.callId !== call.id || answer.data.name !== call.name || answer.data.argumentsHash !== argumentsHash) {
      throw new SpindleError(
        'approval_binding_mismatch',
        `the approval of ${answer.data.requestId} does not match tool call ${call.id} (${call.name})`,
      );
    }
    decisions.set(call.id, answer.data);
  }
  if (pending.length > 0) throw new RunSuspended(pending, 'tool_approval');
  return decisions;
}

async function requestApproval(node: AgentNode, ctx: NodeContext, call: ToolCall, argumentsHash: string): Promise<string> {
  const requestId = ctx.env.ids.requestId();
  const expiresAt = node.approval_timeout_ms ? new Date(ctx.env.clock.now().getTime() + node.approval_timeout_ms).toISOString() : undefined;
  await ctx.env.log.append({
    type: 'approval.requested',
    nodeId: ctx.nodeId,
    spanId: ctx.spanId,
    parentSpanId: ctx.placement.parentSpanId,
    path: ctx.path,
    ...placed(ctx),
    data: {
      requestId,
      prompt: `Agent "${node.id}" wants to call ${call.name}`,
      call: { callId: call.id, name: call.name, arguments: call.arguments, argumentsHash },
      mode: node.approval_mode,
      ...(expiresAt ? { expiresAt } : {}),
    },
  });
  return requestId;
}
