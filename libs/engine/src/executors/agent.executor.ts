import { describeIssues, SpindleError, type FileRef } from '@spindle/contracts';
import { renderTemplate } from '../interpreter/render-template';
import { compileJsonSchema } from '../definition/json-schema';
import type { AgentNode } from '../definition/workflow-definition.schema';
import type { ChatMessage, ToolSpec } from '../ports';
import { isHandoffTool } from '../definition/handoff-names';
import { handOff, handoffToolSpec } from './handoff-tool';
import { callModel } from './model-call';
import type { NodeContext, NodeExecutor } from './node-executor';
import { callTool } from './tool-call';
import { approveToolCalls } from './tool-approval';
import { rememberedMessages } from './agent-memory';
import { attachmentsField, fileRefsIn, nodeAttachments, withAttachments } from './attachments';
import { contextBudget } from '../context/context-budget';
import { fitPrompt, LoggedMessages } from './context-fit';
import { rememberConversation } from './memory-compaction';

interface AgentInput {
  model: string;
  instructions?: string;
  prompt: string;
  tools: string[];
  /** The conversation so far, from `memory_key` (empty without one). */
  history: ChatMessage[];
  /** The files of `attachments`, sent on the prompt's message. */
  attachments?: FileRef[];
  /** The catalog agent and version the node runs (a pattern's `{ "ref" }`): on `node.started`, so the trace shows it. */
  agent?: { name: string; version: number };
}

/**
 * The model ↔ tool loop: call the model with the tools; run every tool call it asks for (each a
 * child span), hand the results back, and repeat until it answers with text alone or
 * `max_turns` model calls are spent. A tool that fails is an observation for the model (and a
 * failed span in the trace), not a node failure.
 *
 * `handoff_to_<agent>` tools are the engine's own (see handoff-tool.ts): calling one ends the
 * agent's turn at once (later calls in the same reply are not run) and writes
 * `{ next_agent, handoff_note }` instead of an answer.
 *
 * With a `memory_key` the agent goes on from the conversation under that state key and writes it
 * back with this turn added (see agent-memory.ts): how a thread's runs remember each other.
 *
 * Tools of the node's `mcp_servers` are discovered through the ToolPort when the agent starts and
 * offered beside `tools`; their calls go through `callTool` like any other, so they are spans too.
 */
export const agentExecutor: NodeExecutor<'agent', AgentInput> = {
  failureCode: 'provider_error',
  prepare: (node, state) => ({
    model: node.model,
    ...(node.instructions !== undefined ? { instructions: renderTemplate(node.instructions, state) } : {}),
    prompt: renderTemplate(node.prompt, state),
    tools: node.tools,
    history: node.memory_key ? rememberedMessages(node.id, node.memory_key, state) : [],
    ...attachmentsField(nodeAttachments(node.id, node.attachments, state)),
    ...(node.agent !== undefined ? { agent: node.agent } : {}),
  }),
  async execute(node, input, ctx) {
    const registered = input.tools.filter((name) => !isHandoffTool(name));
    const listed = [
      ...(registered.length ? ctx.env.tools.specs(registered) : []),
      ...input.tools.filter(isHandoffTool).map(handoffToolSpec),
    ];
    const discovered = await discoverTools(node, ctx);
    // Providers refuse a request that offers one name twice; say which, instead of a provider error.
    const clash = discovered.find((spec) => listed.some((t) => t.name === spec.name));
    if (clash)
      throw new SpindleError(
        'validation_failed',
        `agent "${node.id}" is offered the tool "${clash.name}" both in tools and by an MCP server`,
      );
    const tools = [...listed, ...discovered];
    const messages: ChatMessage[] = [...input.history, withAttachments({ role: 'user', content: input.prompt }, input.attachments ?? [])];
    // The first call logs the remembered conversation in full: this run's log stands on its own.
    let newMessages = messages.length;
    // Each call's prompt is fitted to the budget; the prompt's fields may be cut, so it keeps its template.
    const budget = contextBudget(input.model, node.context);
    const prompt = { promptIndex: input.history.length, template: { text: node.prompt, state: ctx.state } };
    const logged = new LoggedMessages();
    // A structured answer is validated whole, so it is not streamed.
    const stream = node.stream && !node.structured;
    const system = node.structured ? withAnswerSchema(input.instructions, node.structured) : input.instructions;
    let rejected = false;
    for (let turn = 1; turn <= node.max_turns; turn++) {
      const sent = await fitPrompt(ctx, { system, messages, ...prompt }, budget);
      const fresh = logged.fresh(sent, messages, newMessages);
      const reply = await callModel(ctx, {
        model: input.model,
        system,
        messages: sent,
        newMessages: fresh,
        tools,
        stream,
        script: node.script,
      });
      if (reply.toolCalls.length === 0) {
        const answer = node.structured ? structuredAnswer(node.id, reply.text, node.structured) : reply.text;
        const memory = node.memory_key
          ? {
              [node.memory_key]: await rememberConversation(ctx, { ...node, memory_key: node.memory_key }, [
                ...messages,
                { role: 'assistant', content: reply.text },
              ]),
            }
          : {};
        return {
          delta: { [node.output_key]: answer, ...memory },
          ...(rejected && ctx.handles.has('rejected') ? { handle: 'rejected' } : {}),
        };
      }
      const before = messages.length;
      messages.push({ role: 'assistant', content: reply.text, toolCalls: reply.toolCalls });
      const decisions = await approveToolCalls(node, ctx, reply.toolCalls);
      if ([...decisions.values()].some((d) => d.timedOut)) {
        // Nobody decided in time: no call of this reply runs, and the model is not asked again.
        if (ctx.handles.has('timeout')) return { delta: {}, handle: 'timeout' };
        throw new SpindleError('input_timeout', `nobody approved the tool calls of "${node.id}" within ${node.approval_timeout_ms} ms`);
      }
      for (const call of reply.toolCalls) {
        // Only a handoff the agent was offered: an invented one goes to the ToolPort and fails as unknown.
        if (isHandoffTool(call.name) && input.tools.includes(call.name)) return { delta: await handOff(ctx, call) };
        const decision = decisions.get(call.id);
        if (decision?.decision === 'rejected') {
          // Skipped, and the person's message reaches the model as their instruction.
          rejected = true;
          const instruction = decision.message ?? 'A person rejected this tool call.';
          messages.push({
            role: 'tool',
            toolCallId: call.id,
            toolName: call.name,
            content: JSON.stringify({ rejected: true, instruction }),
            isError: true,
          });
          continue;
        }
        const outcome = await callTool(ctx, call);
        messages.push(
          outcome.ok
            ? // Files a tool returns reach the model as files (the runner's ToolPort vouches for them).
              withAttachments<ChatMessage>(
                { role: 'tool', toolCallId: call.id, toolName: call.name, content: JSON.stringify(outcome.result) },
                fileRefsIn(outcome.result),
              )
            : {
                role: 'tool',
                toolCallId: call.id,
                toolName: call.name,
                content: JSON.stringify({ error: outcome.error.message }),
                isError: true,
              },
        );
      }
      newMessages = messages.length - before;
    }
    throw new SpindleError('max_iterations_exceeded', `agent "${node.id}" did not answer within max_turns (${node.max_turns}) model calls`);
  },
};

/** The tools of the node's MCP servers, named `<server>__<tool>`, connected at the agent's start. */
async function discoverTools(node: AgentNode, ctx: NodeContext): Promise<ToolSpec[]> {
  const servers = node.mcp_servers ?? [];
  if (servers.length === 0) return [];
  if (!ctx.env.tools.discover)
    throw new SpindleError('tool_not_found', `agent "${node.id}" names MCP servers, but this runner has no MCP support`);
  return ctx.env.tools.discover(servers, { runId: ctx.env.runId, nodeId: ctx.nodeId, signal: ctx.signal });
}

function withAnswerSchema(instructions: string | undefined, schema: Record<string, unknown>): string {
  const rule = `Give your final answer as JSON only (no prose, no code fence) matching this JSON Schema:\n${JSON.stringify(schema)}`;
  return instructions ? `${instructions}\n\n${rule}` : rule;
}

/** Parses and validates the final answer; a miss is a node failure that says what was wrong. */
function structuredAnswer(nodeId: string, text: string, schema: Record<string, unknown>): unknown {
  const json = text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new SpindleError('validation_failed', `agent "${nodeId}" answered with text that is not JSON: ${text.slice(0, 200)}`);
  }
  const result = compileJsonSchema(schema, 'answer')(value);
  if (!result.ok) {
    throw new SpindleError('validation_failed', `agent "${nodeId}" answer does not match its schema: ${describeIssues(result.issues)}`, {
      issues: result.issues,
    });
  }
  return result.value;
}
