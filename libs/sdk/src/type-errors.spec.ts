import { graph, handoff, concurrent, workflow, WorkflowBuildError } from './index';

/**
 * What TypeScript refuses, proved both ways: each `@ts-expect-error` fails `npm run typecheck` when
 * the error it expects is absent, and each call also throws at run time, for plain JavaScript callers.
 */
const base = workflow('types')
  .node('count', { type: 'function', function: 'word_count', args: { text: '{{input.text}}' } })
  .node('long', { type: 'condition', expression: 'word_count > 3' })
  .node('route', { type: 'router', routes: [{ handle: 'billing', when: 'input.kind == "billing"' }], default: 'other' })
  .node('ask', { type: 'human', prompt: 'Go on?', timeout_ms: 60_000 })
  .node('ask_forever', { type: 'human', prompt: 'Go on?' })
  .node('careful', { type: 'agent', model: 'offline:echo', approval: true })
  .node('stop', { type: 'fail', message: 'no' })
  .node('done', { type: 'set', values: { done: true } });

describe('the type errors a definition in code catches (and the same checks at run time)', () => {
  it('refuses an edge to or from a node id that is not in the graph', () => {
    // @ts-expect-error 'nope' is not a node of this graph
    expect(() => base.edge('count', 'nope')).toThrow(WorkflowBuildError);
    // @ts-expect-error 'nope' is not a node of this graph
    expect(() => base.edge('nope', 'done')).toThrow('no node "nope"');
  });

  it('refuses a node id used twice', () => {
    // @ts-expect-error 'done' is already a node
    expect(() => base.node('done', { type: 'set', values: { again: 1 } })).toThrow('already in this graph');
  });

  it("types a condition's handles: true or false, and one is required", () => {
    expect(base.edge('long', 'done', { handle: 'true' }).build().edges).toEqual([{ from: 'long', to: 'done', handle: 'true' }]);
    // @ts-expect-error a condition emits true or false, not maybe
    expect(() => base.edge('long', 'done', { handle: 'maybe' })).toThrow('not "maybe"');
    // @ts-expect-error a condition has no default handle: the edge must say which
    expect(() => base.edge('long', 'done')).toThrow('not "default"');
  });

  it("types a router's handles from its declared routes and default", () => {
    expect(base.edge('route', 'done', { handle: 'billing' }).edge('route', 'stop', { handle: 'other' }).build().edges).toHaveLength(2);
    // @ts-expect-error the router declares billing and other, not shipping
    expect(() => base.edge('route', 'done', { handle: 'shipping' })).toThrow('not "shipping"');
  });

  it('types timeout handles: only where the step has a wait limit', () => {
    expect(base.edge('ask', 'done', { handle: 'timeout' }).edge('ask', 'stop', { handle: 'rejected' }).build().edges).toHaveLength(2);
    // @ts-expect-error a human step without timeout_ms never times out
    expect(() => base.edge('ask_forever', 'done', { handle: 'timeout' })).toThrow('not "timeout"');
    expect(base.edge('careful', 'stop', { handle: 'rejected' }).build().edges).toHaveLength(1);
    // @ts-expect-error an agent with approval but no approval_timeout_ms never times out
    expect(() => base.edge('careful', 'done', { handle: 'timeout' })).toThrow('not "timeout"');
    const plain = graph()
      .node('plain', { type: 'agent', model: 'offline:echo' })
      .node('x', { type: 'set', values: { a: 1 } });
    // @ts-expect-error an agent without approval is never rejected
    expect(() => plain.edge('plain', 'x', { handle: 'rejected' })).toThrow('not "rejected"');
  });

  it('refuses an edge out of a fail node: the run ends there', () => {
    // @ts-expect-error a fail node emits no handle
    expect(() => base.edge('stop', 'done')).toThrow('no handle');
  });

  it('refuses output keys (and other fields) a node type does not have', () => {
    // @ts-expect-error a condition writes no output_key
    const built = graph().node('c', { type: 'condition', expression: 'true', output_key: 'x' }).build();
    // Not a build error: the gateway's validation refuses it (strict objects) at save.
    expect(built.nodes[0]).toMatchObject({ output_key: 'x' });
    // @ts-expect-error a set node has values, not value
    graph().node('s', { type: 'set', value: { a: 1 } });
  });

  it('types an entry and the pattern fields that name agents', () => {
    // @ts-expect-error entry names a node of the graph
    expect(() => base.entry('nope')).toThrow('no node "nope"');
    const agents = [
      { name: 'triage', model: 'offline:echo' },
      { ref: 'billing', version: 2 },
    ] as const;
    expect(handoff('desk', { agents, start: 'billing' }).build()).toMatchObject({ start: 'billing' });
    // @ts-expect-error start names one of the agents
    handoff('desk', { agents, start: 'shipping' });
    // @ts-expect-error concurrent takes two agents at least
    concurrent('two', { agents: [{ name: 'only', model: 'offline:echo' }] });
  });
});
