import { handoffToolName } from '../definition/handoff-names';
import type { AgentNode, WorkflowNode } from '../definition/workflow-definition.schema';
import type { AgentSpec, HandoffPattern } from './pattern-definition.schema';
import { agentNode, describeTeam, routeTo, TRANSCRIPT, turnLoop, type CompiledGraph } from './pattern-nodes';

/**
 * handoff → `handoff-start` (set: transcript [], next_agent = start, done false) → `handoff-loop`
 * (until `done`, max_steps = maxIterations) → `handoff-finished` (condition `done`) –false→
 * `handoff-exhausted` (fail, `max_iterations_exceeded`).
 *
 * One loop iteration is one agent's turn: `handoff-turn` notes the `speaker`, `handoff-route`
 * picks the agent `next_agent` names, and the agent, offered a `handoff_to_<other>` tool for every
 * other agent, either hands off (the tool writes a new `next_agent` and `handoff_note`) or answers
 * into `reply`. `handoff-check` tells the two apart (`next_agent == speaker`: it kept the turn,
 * so it answered): an answer is appended to the transcript and becomes `output` (`done`); a
 * handoff is appended with its note, and the next iteration goes to the new agent.
 */
export function handoff(def: HandoffPattern): CompiledGraph {
  const agents = def.agents.map((spec) => handoffAgent(spec, def.agents));
  const body: CompiledGraph = {
    nodes: [
      { id: 'handoff-turn', type: 'set', values: { speaker: '{{next_agent}}' } },
      { id: 'handoff-route', type: 'router', routes: routeTo(def.agents, 'next_agent') },
      ...agents,
      { id: 'handoff-check', type: 'condition', expression: 'next_agent == speaker' },
      { id: 'handoff-answered', type: 'append', key: 'transcript', value: { agent: '{{speaker}}', text: '{{reply}}' } },
      { id: 'handoff-finish', type: 'set', values: { output: '{{reply}}', done: true } },
      {
        id: 'handoff-passed',
        type: 'append',
        key: 'transcript',
        value: { agent: '{{speaker}}', handoff_to: '{{next_agent}}', text: '{{handoff_note}}' },
      },
    ],
    edges: [
      { from: 'handoff-turn', to: 'handoff-route' },
      ...agents.flatMap((a) => [
        { from: 'handoff-route', to: a.id, handle: a.id },
        { from: a.id, to: 'handoff-check' },
      ]),
      { from: 'handoff-check', to: 'handoff-answered', handle: 'true' },
      { from: 'handoff-answered', to: 'handoff-finish' },
      { from: 'handoff-check', to: 'handoff-passed', handle: 'false' },
    ],
  };
  const frame = turnLoop('handoff', body, def.maxIterations, 'no agent answered without handing off');
  const start: WorkflowNode = {
    id: 'handoff-start',
    type: 'set',
    values: { transcript: [], next_agent: def.start ?? def.agents[0].name, handoff_note: '', done: false },
  };
  return { nodes: [start, ...frame.nodes], edges: [{ from: start.id, to: frame.loopId }, ...frame.edges] };
}

function handoffAgent(spec: AgentSpec, team: readonly AgentSpec[]): AgentNode {
  const others = team.filter((a) => a.name !== spec.name);
  const rules = [
    `You are "${spec.name}", one of a team of agents working on the request; one agent acts at a time.`,
    'If another agent should take over, call its handoff_to_<name> tool with a message telling it what it needs to know:',
    describeTeam(others),
    'Otherwise answer the request yourself: your answer ends the conversation.',
  ].join('\n');
  return {
    ...agentNode(spec, `{{input}}\n\n${TRANSCRIPT}`, 'reply'),
    instructions: spec.instructions ? `${spec.instructions}\n\n${rules}` : rules,
    tools: [...spec.tools, ...others.map((a) => handoffToolName(a.name))],
  };
}
