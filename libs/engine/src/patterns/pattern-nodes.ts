import { DEFAULT_MEMORY_MAX_MESSAGES } from '../definition/node.schemas';
import type { AgentNode, Edge, GraphDefinition, WorkflowNode } from '../definition/workflow-definition.schema';
import type { AgentSpec } from './pattern-definition.schema';

/** What a pattern compiles to, before the definition-wide fields (budget, timeout…) are added. */
export type CompiledGraph = Pick<GraphDefinition, 'nodes' | 'edges'>;

/**
 * An agent spec as an agent node, with the agent's name as its id. The turn-taking patterns give
 * every node of their own an id with a `-`, which agent names cannot contain, so the two never clash.
 */
export function agentNode(spec: AgentSpec, prompt: string, outputKey = spec.name): AgentNode {
  return {
    id: spec.name,
    type: 'agent',
    model: spec.model,
    ...(spec.script !== undefined ? { script: spec.script } : {}),
    ...(spec.instructions !== undefined ? { instructions: spec.instructions } : {}),
    ...(spec.attachments !== undefined ? { attachments: spec.attachments } : {}),
    prompt,
    tools: spec.tools,
    max_turns: spec.max_turns,
    stream: spec.stream,
    output_key: outputKey,
    approval: spec.approval,
    approval_mode: 'single',
    checkpoint: spec.checkpoint,
    volatile_keys: [],
    memory_max_messages: DEFAULT_MEMORY_MAX_MESSAGES,
    ...(spec.memory_key !== undefined ? { memory_key: spec.memory_key } : {}),
    ...(spec.memory !== undefined ? { memory: spec.memory } : {}),
    ...(spec.context !== undefined ? { context: spec.context } : {}),
    ...(spec.timeout_ms !== undefined ? { timeout_ms: spec.timeout_ms, participant: spec.name } : {}),
    ...(spec.agent !== undefined ? { agent: spec.agent } : {}),
  };
}

/** One line per agent, for whoever chooses among them (a manager, an agent that may hand off). */
export function describeTeam(agents: readonly AgentSpec[]): string {
  return agents.map((a) => `- ${a.name}: ${a.description ?? a.instructions?.split('\n')[0] ?? 'no description given'}`).join('\n');
}

/**
 * The conversation so far, as every turn-taking prompt shows it: the `transcript` list of
 * `{ agent, text, … }` entries the patterns append to, rendered as JSON.
 */
export const TRANSCRIPT = 'The conversation so far (JSON, oldest first): {{transcript}}';

/**
 * The frame every turn-taking pattern shares: `body` runs as a loop until it sets `done`, at most
 * `maxIterations` times. A loop that ends without `done` reaches a `fail` node, so running out of
 * turns fails the run with `max_iterations_exceeded` rather than completing without an answer.
 * `why` says what never happened. Returns the nodes and edges to append after the pattern's own
 * start nodes, and the loop's id.
 */
export function turnLoop(prefix: string, body: CompiledGraph, maxIterations: number, why: string): CompiledGraph & { loopId: string } {
  const loopId = `${prefix}-loop`;
  const nodes: WorkflowNode[] = [
    { id: loopId, type: 'loop', body, until: 'done', max_steps: maxIterations },
    { id: `${prefix}-finished`, type: 'condition', expression: 'done' },
    { id: `${prefix}-exhausted`, type: 'fail', code: 'max_iterations_exceeded', message: `${why} within maxIterations (${maxIterations})` },
  ];
  const edges: Edge[] = [
    { from: loopId, to: `${prefix}-finished` },
    { from: `${prefix}-finished`, to: `${prefix}-exhausted`, handle: 'false' },
  ];
  return { nodes, edges, loopId };
}

/** A router with one route per agent, taken when `field` (a CEL path) names it. */
export function routeTo(agents: readonly AgentSpec[], field: string): Array<{ handle: string; when: string }> {
  // Agent names are identifiers, so they are safe inside a CEL string literal.
  return agents.map((a) => ({ handle: a.name, when: `${field} == "${a.name}"` }));
}
