import type { WorkflowDefinitionInput } from './workflow-definition.schema';
import { isHandoffTool } from './handoff-names';

/** A function or tool a definition names, and the field that names it (`nodes[2].function`). */
export interface NamedCapability {
  kind: 'function' | 'tool';
  name: string;
  field: string;
  /** The node (or pattern agent) that names it. */
  node?: string;
}

type Input = WorkflowDefinitionInput;
type GraphInput = Extract<Input, { kind: 'graph' }>;
type NodeInput = GraphInput['nodes'][number];
type AgentInput = { name?: string; tools?: readonly string[] };

/**
 * Every function and tool a definition names, walking loop bodies, fork branches and pattern
 * agents: what a runner must have to run it. Tools an agent's MCP servers bring
 * (`<server>__<tool>`) and the engine's handoff tools are found at run time, so they are left out.
 * Takes a definition as written (defaults not applied): the console reads it from the catalog too.
 */
export function namedCapabilities(definition: Input): NamedCapability[] {
  if (definition.kind === 'graph') return inContainer(definition, '');
  const agents: Array<[AgentInput, string]> = definition.agents.map((a, i) => [a, `agents[${i}]`]);
  if ('manager' in definition) agents.push([definition.manager, 'manager']);
  if ('aggregator' in definition && definition.aggregator) agents.push([definition.aggregator, 'aggregator']);
  return agents.flatMap(([agent, at]) => toolsOf(agent.tools ?? [], `${at}.tools`, [], agent.name));
}

function inContainer(container: { nodes: readonly NodeInput[] }, at: string): NamedCapability[] {
  return container.nodes.flatMap((node, i): NamedCapability[] => {
    const where = `${at}nodes[${i}]`;
    switch (node.type) {
      case 'function':
        return [{ kind: 'function', name: node.function, field: `${where}.function`, node: node.id }];
      case 'tool':
        return [{ kind: 'tool', name: node.tool, field: `${where}.tool`, node: node.id }];
      case 'agent':
        return toolsOf(node.tools ?? [], `${where}.tools`, node.mcp_servers?.map((s) => s.name) ?? [], node.id);
      case 'loop':
        return inContainer(node.body, `${where}.body.`);
      case 'fork':
        return Object.entries(node.branches).flatMap(([id, branch]) => inContainer(branch, `${where}.branches.${id}.`));
      default:
        return [];
    }
  });
}

function toolsOf(names: readonly string[], field: string, mcpServers: readonly string[], node: string | undefined): NamedCapability[] {
  const discovered = (name: string) => mcpServers.some((server) => name.startsWith(`${server}__`));
  return names.flatMap((name, j) =>
    isHandoffTool(name) || discovered(name)
      ? []
      : [{ kind: 'tool' as const, name, field: `${field}[${j}]`, ...(node !== undefined ? { node } : {}) }],
  );
}
