import type { WorkflowNode } from '../definition/workflow-definition.schema';
import type { GroupChatPattern } from './pattern-definition.schema';
import { agentNode, describeTeam, routeTo, TRANSCRIPT, turnLoop, type CompiledGraph } from './pattern-nodes';

/** The manager's structured answer: who speaks next (or FINISH), and why. */
export function selectionSchema(names: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: { next: { enum: [...names, 'FINISH'] }, reason: { type: 'string' } },
    required: ['next', 'reason'],
  };
}

/**
 * group_chat → `chat-start` (set: transcript [], reply '', done false) → `chat-loop` (until
 * `done`, max_steps = maxIterations) → `chat-finished` (condition `done`) –false→ `chat-exhausted`
 * (fail, `max_iterations_exceeded`).
 *
 * One loop iteration is one round: the manager (an agent with a structured answer validated
 * against `selectionSchema`, so `next` is always a participant or FINISH) writes `selection`;
 * `chat-pick` routes on `selection.next` to that agent, whose answer (`reply`) `chat-said` appends
 * to the transcript; FINISH goes to `chat-finish`, which makes the last answer `output` ('' if nobody spoke) and sets `done`.
 */
export function groupChat(def: GroupChatPattern): CompiledGraph {
  const names = def.agents.map((a) => a.name);
  const managerPrompt = [
    'Task: {{input}}',
    `Participants:\n${describeTeam(def.agents)}`,
    TRANSCRIPT,
    'Choose who speaks next ("next"), or "FINISH" once the task is done, and say why ("reason").',
  ].join('\n\n');
  const manager = { ...agentNode(def.manager, managerPrompt, 'selection'), structured: selectionSchema(names) };
  const speakers = def.agents.map((spec) =>
    agentNode(spec, `Task: {{input}}\n\n${TRANSCRIPT}\n\nIt is your turn, "${spec.name}".`, 'reply'),
  );
  const body: CompiledGraph = {
    nodes: [
      manager,
      {
        id: 'chat-pick',
        type: 'router',
        routes: [...routeTo(def.agents, 'selection.next'), { handle: 'FINISH', when: 'selection.next == "FINISH"' }],
      },
      ...speakers,
      { id: 'chat-said', type: 'append', key: 'transcript', value: { agent: '{{selection.next}}', text: '{{reply}}' } },
      { id: 'chat-finish', type: 'set', values: { output: '{{reply}}', done: true } },
    ],
    edges: [
      { from: manager.id, to: 'chat-pick' },
      ...speakers.flatMap((s) => [
        { from: 'chat-pick', to: s.id, handle: s.id },
        { from: s.id, to: 'chat-said' },
      ]),
      { from: 'chat-pick', to: 'chat-finish', handle: 'FINISH' },
    ],
  };
  const frame = turnLoop('chat', body, def.maxIterations, 'the manager did not say FINISH');
  const start: WorkflowNode = { id: 'chat-start', type: 'set', values: { transcript: [], reply: '', done: false } };
  return { nodes: [start, ...frame.nodes], edges: [{ from: start.id, to: frame.loopId }, ...frame.edges] };
}
