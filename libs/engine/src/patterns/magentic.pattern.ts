import type { AgentNode, WorkflowNode } from '../definition/workflow-definition.schema';
import type { MagenticPattern } from './pattern-definition.schema';
import { agentNode, describeTeam, routeTo, TRANSCRIPT, turnLoop, type CompiledGraph } from './pattern-nodes';

/** The manager's task ledger: what it knows and its plan. */
export const PLAN_SCHEMA = {
  type: 'object',
  properties: { facts: { type: 'string' }, plan: { type: 'array', items: { type: 'string' }, minItems: 1 } },
  required: ['facts', 'plan'],
};

/** The manager's progress ledger: an `answer` once done, else who acts next and how. */
export function ledgerSchema(names: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      is_done: { type: 'boolean' },
      is_progressing: { type: 'boolean' },
      next_agent: { enum: [...names] },
      instruction: { type: 'string' },
      answer: { type: 'string' },
    },
    required: ['is_done', 'is_progressing'],
    if: { properties: { is_done: { const: true } } },
    then: { required: ['answer'] },
    else: { required: ['next_agent', 'instruction'] },
  };
}

/**
 * magentic → `magentic-start` (set: transcript [], done false) → `<manager>-plan` (structured
 * `PLAN_SCHEMA` into `plan`) → `magentic-loop` (until `done`, max_steps = maxIterations) →
 * `magentic-finished` (condition `done`) –false→ `magentic-exhausted` (fail, `max_iterations_exceeded`).
 *
 * One loop iteration is one round: `<manager>-ledger` writes the progress ledger (`ledger`), and
 * `magentic-assess` routes on it, first match wins: done → `magentic-finish` (`ledger.answer`
 * becomes `output`); no progress → `<manager>-replan` (a new `plan` from what was learned; the
 * next round's ledger works from it); otherwise the agent `ledger.next_agent` names, whose answer
 * `magentic-said` appends to the transcript with the instruction it was given.
 */
export function magentic(def: MagenticPattern): CompiledGraph {
  const m = def.manager.name;
  const task = `Task: {{input}}\n\nTeam:\n${describeTeam(def.agents)}`;
  const current = 'Facts: {{plan.facts}}\nPlan: {{plan.plan}}';
  const managerNode = (id: string, prompt: string, outputKey: string, structured: Record<string, unknown>): AgentNode => ({
    ...agentNode(def.manager, prompt, outputKey),
    id,
    structured,
  });
  const plan = managerNode(
    `${m}-plan`,
    `${task}\n\nWrite down the facts you know and what must still be found out ("facts"), and a step-by-step plan for the team ("plan").`,
    'plan',
    PLAN_SCHEMA,
  );
  const ledger = managerNode(
    `${m}-ledger`,
    `${task}\n\n${current}\n\n${TRANSCRIPT}\n\n` +
      'Update the progress ledger: is the task done ("is_done", then give the final "answer")? ' +
      'Is the work making progress ("is_progressing": false when it loops or is stuck)? ' +
      'Who acts next ("next_agent") and with what "instruction"?',
    'ledger',
    ledgerSchema(def.agents.map((a) => a.name)),
  );
  const replan = managerNode(
    `${m}-replan`,
    `${task}\n\nThis plan has stalled:\n${current}\n\n${TRANSCRIPT}\n\n` +
      'Revise the facts with what has been learned, and write a new plan that gets past what blocked the old one.',
    'plan',
    PLAN_SCHEMA,
  );
  const workers = def.agents.map((spec) =>
    agentNode(spec, `Task: {{input}}\n\n${TRANSCRIPT}\n\nYour instruction from the manager: {{ledger.instruction}}`, 'reply'),
  );
  const body: CompiledGraph = {
    nodes: [
      ledger,
      // Fixed handles contain `-`, which agent names cannot, so they never clash with an agent's handle.
      {
        id: 'magentic-assess',
        type: 'router',
        routes: [
          { handle: 'is-done', when: 'ledger.is_done' },
          { handle: 'no-progress', when: '!ledger.is_progressing' },
          ...routeTo(def.agents, 'ledger.next_agent'),
        ],
      },
      { id: 'magentic-finish', type: 'set', values: { output: '{{ledger.answer}}', done: true } },
      replan,
      ...workers,
      {
        id: 'magentic-said',
        type: 'append',
        key: 'transcript',
        value: { agent: '{{ledger.next_agent}}', instruction: '{{ledger.instruction}}', text: '{{reply}}' },
      },
    ],
    edges: [
      { from: ledger.id, to: 'magentic-assess' },
      { from: 'magentic-assess', to: 'magentic-finish', handle: 'is-done' },
      { from: 'magentic-assess', to: replan.id, handle: 'no-progress' },
      ...workers.flatMap((w) => [
        { from: 'magentic-assess', to: w.id, handle: w.id },
        { from: w.id, to: 'magentic-said' },
      ]),
    ],
  };
  const frame = turnLoop('magentic', body, def.maxIterations, 'the manager did not mark the task done');
  const start: WorkflowNode = { id: 'magentic-start', type: 'set', values: { transcript: [], done: false } };
  return {
    nodes: [start, plan, ...frame.nodes],
    edges: [{ from: start.id, to: plan.id }, { from: plan.id, to: frame.loopId }, ...frame.edges],
  };
}
