import type { AgentNode, Edge, GraphDefinition, WorkflowDefinition } from '../definition/workflow-definition.schema';
import type { AgentSpec, ConcurrentPattern, PatternDefinition, SequentialPattern } from './pattern-definition.schema';

/** The graph a definition runs as: a graph as it is, a pattern compiled. */
export function toGraph(def: WorkflowDefinition): GraphDefinition {
  return def.kind === 'graph' ? def : compilePattern(def);
}

export function compilePattern(def: PatternDefinition): GraphDefinition {
  const compiled: Record<PatternDefinition['kind'], () => Pick<GraphDefinition, 'nodes' | 'edges'>> = {
    sequential: () => sequential(def as SequentialPattern),
    concurrent: () => concurrent(def as ConcurrentPattern),
  };
  const { kind: _kind, agents: _agents, ...shared } = def as PatternDefinition & { aggregator?: unknown };
  delete (shared as { aggregator?: unknown }).aggregator;
  return { kind: 'graph', ...shared, ...compiled[def.kind]() };
}

function agentNode(spec: AgentSpec, prompt: string, outputKey = spec.name): AgentNode {
  return {
    id: spec.name,
    type: 'agent',
    model: spec.model,
    ...(spec.instructions !== undefined ? { instructions: spec.instructions } : {}),
    prompt,
    tools: spec.tools,
    max_turns: spec.max_turns,
    stream: spec.stream,
    output_key: outputKey,
  };
}

function sequential(def: SequentialPattern) {
  const nodes = def.agents.map((spec, i) => agentNode(spec, i === 0 ? '{{input}}' : `{{${def.agents[i - 1].name}}}`));
  const last = def.agents[def.agents.length - 1].name;
  const edges: Edge[] = def.agents.slice(1).map((spec, i) => ({ from: def.agents[i].name, to: spec.name }));
  return {
    nodes: [...nodes, { id: 'result', type: 'set' as const, values: { output: `{{${last}}}` } }],
    edges: [...edges, { from: last, to: 'result' }],
  };
}

function concurrent(def: ConcurrentPattern) {
  const branches = Object.fromEntries(def.agents.map((spec) => [spec.name, { nodes: [agentNode(spec, '{{input}}', 'answer')], edges: [] }]));
  const fork = { id: 'agents', type: 'fork' as const, branches, output_key: 'answers', result_key: 'answer', continue_on_error: false };
  if (!def.aggregator) {
    return { nodes: [fork, { id: 'result', type: 'set' as const, values: { output: '{{answers}}' } }], edges: [{ from: 'agents', to: 'result' }] };
  }
  const listed = def.agents.map((spec) => `${spec.name}: {{answers.${spec.name}}}`).join('\n');
  const aggregator = agentNode(def.aggregator, `Question: {{input}}\n\nAnswers:\n${listed}`, 'output');
  return { nodes: [fork, aggregator], edges: [{ from: 'agents', to: aggregator.id }] };
}
