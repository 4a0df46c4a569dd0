import type { GraphDefinition, WorkflowDefinition } from '../definition/workflow-definition.schema';
import { groupChat } from './group-chat.pattern';
import { handoff } from './handoff.pattern';
import { magentic } from './magentic.pattern';
import type { AgentSpec, ConcurrentPattern, PatternDefinition, SequentialPattern } from './pattern-definition.schema';
import { agentNode, type CompiledGraph } from './pattern-nodes';

/** The graph a definition runs as: a graph as it is, a pattern compiled. */
export function toGraph(def: WorkflowDefinition): GraphDefinition {
  return def.kind === 'graph' ? def : compilePattern(def);
}

/** Fields a pattern shares with a graph definition and passes through unchanged. */
const SHARED = ['description', 'budget', 'runTimeoutMs', 'parameters', 'evaluators'] as const;

export function compilePattern(def: PatternDefinition): GraphDefinition {
  // Exhaustive over pattern kinds: a new kind does not compile until it has a compiler.
  const compiled: { [K in PatternDefinition['kind']]: (def: Extract<PatternDefinition, { kind: K }>) => CompiledGraph } = {
    sequential,
    concurrent,
    handoff,
    group_chat: groupChat,
    magentic,
  };
  const shared = Object.fromEntries(SHARED.filter((key) => def[key] !== undefined).map((key) => [key, def[key]])) as Pick<
    GraphDefinition,
    (typeof SHARED)[number]
  >;
  return { kind: 'graph', ...shared, ...(compiled[def.kind] as (def: PatternDefinition) => CompiledGraph)(withWaitLimits(def)) };
}

/** Every participant (agents, manager, aggregator) with its wait limit: its own `timeout_ms`, else the pattern's `agentTimeoutMs`. */
function withWaitLimits(def: PatternDefinition): PatternDefinition {
  const limit = def.agentTimeoutMs;
  if (limit === undefined) return def;
  const limited = (spec: AgentSpec): AgentSpec => (spec.timeout_ms === undefined ? { ...spec, timeout_ms: limit } : spec);
  const out = { ...def, agents: def.agents.map(limited) } as PatternDefinition;
  if ('manager' in out) out.manager = limited(out.manager);
  if ('aggregator' in out && out.aggregator) out.aggregator = limited(out.aggregator);
  return out;
}

function sequential(def: SequentialPattern): CompiledGraph {
  const nodes = def.agents.map((spec, i) => agentNode(spec, i === 0 ? '{{input}}' : `{{${def.agents[i - 1].name}}}`));
  const last = def.agents[def.agents.length - 1].name;
  const edges = def.agents.slice(1).map((spec, i) => ({ from: def.agents[i].name, to: spec.name }));
  return {
    nodes: [...nodes, { id: 'result', type: 'set' as const, values: { output: `{{${last}}}` } }],
    edges: [...edges, { from: last, to: 'result' }],
  };
}

function concurrent(def: ConcurrentPattern): CompiledGraph {
  const branches = Object.fromEntries(
    def.agents.map((spec) => [spec.name, { nodes: [agentNode(spec, '{{input}}', 'answer')], edges: [] }]),
  );
  const fork = { id: 'agents', type: 'fork' as const, branches, output_key: 'answers', result_key: 'answer', continue_on_error: false };
  if (!def.aggregator) {
    return {
      nodes: [fork, { id: 'result', type: 'set' as const, values: { output: '{{answers}}' } }],
      edges: [{ from: 'agents', to: 'result' }],
    };
  }
  const listed = def.agents.map((spec) => `${spec.name}: {{answers.${spec.name}}}`).join('\n');
  const aggregator = agentNode(def.aggregator, `Question: {{input}}\n\nAnswers:\n${listed}`, 'output');
  return { nodes: [fork, aggregator], edges: [{ from: 'agents', to: aggregator.id }] };
}
