import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { canonicalJson, planCatalogSave } from '@spindle/contracts';
import { validateDefinition, type WorkflowDefinitionInput } from '@spindle/engine';
import { z } from 'zod';
import {
  concurrent,
  graph,
  groupChat,
  handoff,
  magentic,
  sequential,
  workflow,
  type GraphDefinitionJson,
  type NodeType,
  type PatternAgent,
  type SpecOf,
  type Workflow,
} from './index';

/**
 * Every node type and every pattern, built in code, is the JSON a person writes (no default filled in)
 * and passes the gateway's validation; saved after its hand-written twin, it is the same catalog version.
 */
function expectSameDefinition(built: Workflow, handWritten: Record<string, unknown>) {
  const definition = built.build();
  expect(definition).toEqual(handWritten);
  expect(canonicalJson(definition)).toBe(canonicalJson(handWritten));
  expect(JSON.parse(JSON.stringify(built))).toEqual(handWritten);
  expect(planCatalogSave({ version: 4, content: handWritten, deleted: false }, definition)).toEqual({ created: false, version: 4 });
  return definition;
}

const scripted = (answer: string) => ({ model: 'offline:script', script: [{ answer }] }) as const;

describe('a graph built in code', () => {
  const nodeCases: Array<[string, Workflow<GraphDefinitionJson>, Record<string, unknown>]> = [
    [
      'set, function, condition, llm: examples/hello-workflow.json, as the file holds it',
      workflow('hello', { description: 'Greets someone, counts the words, and asks a model to reply — streamed token by token.' })
        .node('greet', { type: 'set', values: { greeting: 'Hello {{input.name}}' } })
        .node('count', { type: 'function', function: 'word_count', args: { text: '{{greeting}}' } })
        .node('long_enough', { type: 'condition', expression: 'word_count > 1' })
        .node('reply', {
          type: 'llm',
          model: 'offline:echo',
          system: 'Answer briefly.',
          prompt: '{{greeting}}, what a fine day to run a workflow!',
          stream: true,
          output_key: 'answer',
        })
        .node('too_short', { type: 'set', values: { answer: 'Tell me your name first.' } })
        .edge('greet', 'count')
        .edge('count', 'long_enough')
        .edge('long_enough', 'reply', { handle: 'true' })
        .edge('long_enough', 'too_short', { handle: 'false' }),
      JSON.parse(readFileSync(resolve(__dirname, '../../../examples/hello-workflow.json'), 'utf8')) as Record<string, unknown>,
    ],
    [
      'agent with tool approval and its timeout, tool',
      workflow('desk', { budget: { maxTotalTokens: 5000 }, runTimeoutMs: 60_000, secrets: ['api_key'] })
        .node('agent', {
          type: 'agent',
          ...scripted('Done.'),
          instructions: 'Help.',
          tools: ['calculator'],
          approval: ['calculator'],
          approval_timeout_ms: 60_000,
        })
        .node('lookup', { type: 'tool', tool: 'calculator', args: { expression: '1+1' }, output_key: 'sum' })
        .node('declined', { type: 'set', values: { answer: 'declined' } })
        .node('late', { type: 'fail', message: 'nobody approved in time' })
        .edge('agent', 'lookup')
        .edge('agent', 'declined', { handle: 'rejected' })
        .edge('agent', 'late', { handle: 'timeout' }),
      {
        kind: 'graph',
        budget: { maxTotalTokens: 5000 },
        runTimeoutMs: 60_000,
        secrets: ['api_key'],
        nodes: [
          {
            id: 'agent',
            type: 'agent',
            model: 'offline:script',
            script: [{ answer: 'Done.' }],
            instructions: 'Help.',
            tools: ['calculator'],
            approval: ['calculator'],
            approval_timeout_ms: 60_000,
          },
          { id: 'lookup', type: 'tool', tool: 'calculator', args: { expression: '1+1' }, output_key: 'sum' },
          { id: 'declined', type: 'set', values: { answer: 'declined' } },
          { id: 'late', type: 'fail', message: 'nobody approved in time' },
        ],
        edges: [
          { from: 'agent', to: 'lookup' },
          { from: 'agent', to: 'declined', handle: 'rejected' },
          { from: 'agent', to: 'late', handle: 'timeout' },
        ],
      },
    ],
    [
      'router, retrieve, human with a timeout, append, fail',
      workflow('support')
        .node('route', { type: 'router', routes: [{ handle: 'kb', when: 'input.kind == "question"' }], default: 'person' })
        .node('search', { type: 'retrieve', knowledgeBase: 'support-docs', query: '{{input.text}}', topK: 3 })
        .node('ask', { type: 'human', prompt: 'Answer {{input.text}}', form: 'text', timeout_ms: 3_600_000, output_key: 'reply' })
        .node('log', { type: 'append', key: 'seen', value: '{{input.text}}' })
        .node('give_up', { type: 'fail', code: 'node_failed', message: 'nobody answered {{input.text}}' })
        .edge('route', 'search', { handle: 'kb' })
        .edge('route', 'ask', { handle: 'person' })
        .edge('ask', 'log')
        .edge('ask', 'give_up', { handle: 'rejected' })
        .edge('ask', 'give_up', { handle: 'timeout' })
        .entry('route'),
      {
        kind: 'graph',
        nodes: [
          { id: 'route', type: 'router', routes: [{ handle: 'kb', when: 'input.kind == "question"' }], default: 'person' },
          { id: 'search', type: 'retrieve', knowledgeBase: 'support-docs', query: '{{input.text}}', topK: 3 },
          { id: 'ask', type: 'human', prompt: 'Answer {{input.text}}', form: 'text', timeout_ms: 3_600_000, output_key: 'reply' },
          { id: 'log', type: 'append', key: 'seen', value: '{{input.text}}' },
          { id: 'give_up', type: 'fail', code: 'node_failed', message: 'nobody answered {{input.text}}' },
        ],
        edges: [
          { from: 'route', to: 'search', handle: 'kb' },
          { from: 'route', to: 'ask', handle: 'person' },
          { from: 'ask', to: 'log' },
          { from: 'ask', to: 'give_up', handle: 'rejected' },
          { from: 'ask', to: 'give_up', handle: 'timeout' },
        ],
        entry: 'route',
      },
    ],
    [
      'loop (body from graph()), fork (a builder and plain JSON), subgraph; parameters from zod',
      workflow('counting', { parameters: z.object({ times: z.number().int().min(1).default(3) }) })
        .node('rounds', {
          type: 'loop',
          max_steps: 5,
          until: 'count >= parameters.times',
          body: graph().node('step', { type: 'function', function: 'increment', args: { key: 'count' } }),
        })
        .node('both', {
          type: 'fork',
          branches: {
            left: graph()
              .node('a', { type: 'set', values: { side: 'left' } })
              .node('b', { type: 'function', function: 'word_count', args: { text: '{{side}}' } })
              .edge('a', 'b'),
            right: { nodes: [{ id: 'c', type: 'set', values: { side: 'right' } }] },
          },
          result_key: 'side',
        })
        .node('child', { type: 'subgraph', workflow: 'hello', version: 2, input: { name: '{{input.name}}' }, output_key: 'greeting' })
        .edge('rounds', 'both')
        .edge('both', 'child'),
      {
        kind: 'graph',
        parameters: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: { times: { default: 3, type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
        },
        nodes: [
          {
            id: 'rounds',
            type: 'loop',
            max_steps: 5,
            until: 'count >= parameters.times',
            body: { nodes: [{ id: 'step', type: 'function', function: 'increment', args: { key: 'count' } }] },
          },
          {
            id: 'both',
            type: 'fork',
            branches: {
              left: {
                nodes: [
                  { id: 'a', type: 'set', values: { side: 'left' } },
                  { id: 'b', type: 'function', function: 'word_count', args: { text: '{{side}}' } },
                ],
                edges: [{ from: 'a', to: 'b' }],
              },
              right: { nodes: [{ id: 'c', type: 'set', values: { side: 'right' } }] },
            },
            result_key: 'side',
          },
          { id: 'child', type: 'subgraph', workflow: 'hello', version: 2, input: { name: '{{input.name}}' }, output_key: 'greeting' },
        ],
        edges: [
          { from: 'rounds', to: 'both' },
          { from: 'both', to: 'child' },
        ],
      },
    ],
  ];

  it.each(nodeCases)('%s: the JSON written by hand, valid for the gateway', (_name, built, handWritten) => {
    const definition = expectSameDefinition(built, handWritten);
    expect(() => validateDefinition(definition)).not.toThrow();
  });

  it('covers every node type the engine has', () => {
    const types = new Set<string>();
    const collect = (nodes: ReadonlyArray<Record<string, unknown>>): void =>
      nodes.forEach((n) => {
        types.add(String(n.type));
        if (n.type === 'loop') collect((n.body as { nodes: Array<Record<string, unknown>> }).nodes);
      });
    nodeCases.forEach(([, built]) => collect(built.build().nodes as never));
    expect([...types].sort()).toEqual(
      [
        'agent',
        'append',
        'condition',
        'fail',
        'fork',
        'function',
        'human',
        'llm',
        'loop',
        'retrieve',
        'router',
        'set',
        'subgraph',
        'tool',
      ].sort(),
    );
  });

  it('reuses a base graph: each extension is its own builder', () => {
    const base = workflow('base').node('start', { type: 'set', values: { n: 1 } });
    const one = base.node('one', { type: 'set', values: { n: 2 } }).edge('start', 'one');
    const other = base.node('other', { type: 'set', values: { n: 3 } }).edge('start', 'other');
    expect(one.build().nodes.map((n) => n.id)).toEqual(['start', 'one']);
    expect(other.build().nodes.map((n) => n.id)).toEqual(['start', 'other']);
    expect(base.build()).toEqual({ kind: 'graph', nodes: [{ id: 'start', type: 'set', values: { n: 1 } }] });
  });
});

describe('a pattern built in code', () => {
  const researcher = { name: 'researcher', ...scripted('Facts.'), instructions: 'List the facts.' } as const;
  const writer = { name: 'writer', ...scripted('One sentence.'), instructions: 'Write one sentence.' } as const;
  const manager = { name: 'lead', ...scripted('FINISH') } as const;
  const patternCases: Array<[string, Workflow, Record<string, unknown>]> = [
    [
      'sequential',
      sequential('brief', { description: 'Research, then write.', agents: [researcher, writer] }),
      { kind: 'sequential', description: 'Research, then write.', agents: [researcher, writer] },
    ],
    [
      'concurrent with an aggregator',
      concurrent('panel', {
        agents: [researcher, writer],
        aggregator: { name: 'merge', model: 'offline:echo' },
        budget: { maxTotalCost: 1 },
      }),
      {
        kind: 'concurrent',
        agents: [researcher, writer],
        aggregator: { name: 'merge', model: 'offline:echo' },
        budget: { maxTotalCost: 1 },
      },
    ],
    [
      'handoff',
      handoff('desk', { agents: [researcher, writer], start: 'writer', maxIterations: 4 }),
      { kind: 'handoff', agents: [researcher, writer], start: 'writer', maxIterations: 4 },
    ],
    [
      'group chat',
      groupChat('room', { agents: [researcher, writer], manager }),
      { kind: 'group_chat', agents: [researcher, writer], manager },
    ],
    [
      'magentic',
      magentic('plan', { agents: [researcher], manager, maxIterations: 3, runTimeoutMs: 30_000 }),
      { kind: 'magentic', agents: [researcher], manager, maxIterations: 3, runTimeoutMs: 30_000 },
    ],
    [
      'wait limits',
      sequential('timed', { agents: [{ ...researcher, timeout_ms: 5_000 }, writer], agentTimeoutMs: 20_000 }),
      { kind: 'sequential', agents: [{ ...researcher, timeout_ms: 5_000 }, writer], agentTimeoutMs: 20_000 },
    ],
  ];

  it.each(patternCases)('%s: the JSON written by hand, valid for the gateway', (_name, built, handWritten) => {
    const definition = expectSameDefinition(built, handWritten);
    expect(() => validateDefinition(definition)).not.toThrow();
  });

  it('names catalog agents with { ref, version? } as they are written', () => {
    const built = groupChat('refs', { agents: [{ ref: 'billing', version: 3 }, { ref: 'triage' }], manager: { ref: 'lead' } });
    expectSameDefinition(built, {
      kind: 'group_chat',
      agents: [{ ref: 'billing', version: 3 }, { ref: 'triage' }],
      manager: { ref: 'lead' },
    });
  });

  it('pins a catalog agent to the version a run parameter names', () => {
    const parameters = { type: 'object', properties: { billing_version: { type: 'integer', minimum: 1 } } };
    const built = sequential('pinned', { parameters, agents: [{ ref: 'billing', version: { parameter: 'billing_version' } }] });
    expectSameDefinition(built, {
      kind: 'sequential',
      parameters,
      agents: [{ ref: 'billing', version: { parameter: 'billing_version' } }],
    });
  });
});

// The SDK's types fit the engine's definition input, field by field: a spec TypeScript accepts here is one
// the engine parses (its nested graphs aside, which are builders or JSON). Drift fails the typecheck.
type DeepReadonly<T> = T extends (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
type EngineGraph = Extract<WorkflowDefinitionInput, { kind: 'graph' }>;
type EngineNode<T extends NodeType> = DeepReadonly<Omit<Extract<EngineGraph['nodes'][number], { type: T }>, 'body' | 'branches'>>;
type Fits<T extends NodeType> = Omit<SpecOf<T> & { readonly id: string }, 'body' | 'branches'> extends EngineNode<T> ? true : false;
type EngineAgent = DeepReadonly<Exclude<Extract<WorkflowDefinitionInput, { kind: 'sequential' }>['agents'][number], { ref: string }>>;
const specsFitTheEngine: { [T in NodeType]: Fits<T> } & { patternAgent: PatternAgent extends EngineAgent ? true : false } = {
  set: true,
  llm: true,
  condition: true,
  function: true,
  agent: true,
  tool: true,
  retrieve: true,
  router: true,
  human: true,
  loop: true,
  fork: true,
  subgraph: true,
  append: true,
  fail: true,
  patternAgent: true,
};
void specsFitTheEngine;
