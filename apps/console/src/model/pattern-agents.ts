import type { WorkflowGraph } from '@spindle/client';
import { pinLabel } from './agent-pins';

type Node = WorkflowGraph['nodes'][number];
type Edge = WorkflowGraph['edges'][number];

const PATTERNS = new Set(['sequential', 'concurrent', 'handoff', 'group_chat', 'magentic']);

interface AgentLike {
  name?: unknown;
  ref?: unknown;
  version?: unknown;
}

/**
 * A pattern workflow as its agents: who works after whom, who can hand off to whom, who picks the
 * next speaker. Drawn from the stored definition, so it is what the author wrote; the compiled
 * nodes stay one click away. Undefined for a graph workflow. Agent node ids are the agents' names
 * (the compiled agent nodes' ids), so a run's states light them.
 */
export function agentGraph(definition: unknown, name: string, version: number): WorkflowGraph | undefined {
  const def = (definition ?? {}) as { kind?: unknown; agents?: AgentLike[]; manager?: AgentLike; aggregator?: AgentLike; start?: unknown };
  if (typeof def.kind !== 'string' || !PATTERNS.has(def.kind) || !Array.isArray(def.agents)) return undefined;
  const agents = def.agents.map((a, i) => labelOf(a, `agent_${i + 1}`));
  // A catalog agent's pin shows beside its name ("writer v3"); the id stays the name a run's states light.
  const pins = new Map(
    [...def.agents, def.manager, def.aggregator].flatMap((a) => {
      const pin = a ? pinLabel(a.version) : undefined;
      return a && pin ? [[labelOf(a, ''), `${labelOf(a, '')} ${pin}`] as const] : [];
    }),
  );
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const node = (id: string, type: string, rank: number, order: number, label = pins.get(id) ?? id) =>
    nodes.push({ id, type, label, rank, order });
  const edge = (from: string, to: string, handle: string, back = false) => edges.push({ from, to, handle, back });
  node('input', 'start', 0, 0);
  switch (def.kind) {
    case 'sequential':
      agents.forEach((a, i) => node(a, 'agent', i + 1, 0));
      [...agents, 'output'].reduce((from, to) => (edge(from, to, from === 'input' ? 'input' : 'answer'), to), 'input');
      node('output', 'end', agents.length + 1, 0);
      break;
    case 'concurrent': {
      const aggregator = def.aggregator ? labelOf(def.aggregator, 'aggregator') : undefined;
      agents.forEach((a, i) => (node(a, 'agent', 1, i), edge('input', a, 'input')));
      if (aggregator) {
        node(aggregator, 'aggregator', 2, 0);
        agents.forEach((a) => edge(a, aggregator, 'answer'));
        edge(aggregator, 'output', 'combined');
      } else agents.forEach((a) => edge(a, 'output', 'answer'));
      node('output', 'end', aggregator ? 3 : 2, 0);
      break;
    }
    case 'handoff': {
      const first = typeof def.start === 'string' && agents.includes(def.start) ? def.start : agents[0]!;
      agents.forEach((a, i) => node(a, 'agent', 1, i));
      edge('input', first, 'first turn');
      for (const from of agents) for (const to of agents) if (from !== to) edge(from, to, 'hands off');
      agents.forEach((a) => edge(a, 'output', 'answers'));
      node('output', 'end', 2, 0);
      break;
    }
    case 'group_chat':
    case 'magentic': {
      const manager = labelOf(def.manager ?? {}, 'manager');
      node(manager, 'manager', 1, 0);
      agents.forEach((a, i) => node(a, 'agent', 2, i));
      edge('input', manager, 'task');
      const [asks, replies] = def.kind === 'group_chat' ? ['picks', 'speaks'] : ['delegates', 'reports'];
      for (const a of agents) {
        edge(manager, a, asks);
        edge(a, manager, replies, true);
      }
      edge(manager, 'output', def.kind === 'group_chat' ? 'FINISH' : 'final answer');
      node('output', 'end', 3, 0);
      break;
    }
  }
  return { name, version, entry: 'input', nodes, edges, mermaid: '' };
}

/** An agent's name, or the catalog agent it refers to (`{ "ref": "name", "version"?: … }`). */
function labelOf(agent: AgentLike, fallback: string): string {
  if (typeof agent.name === 'string') return agent.name;
  if (typeof agent.ref === 'string') return agent.ref;
  return fallback;
}
