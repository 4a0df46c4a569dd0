import { SpindleError } from '@spindle/contracts';
import { validateDefinition } from './validate-definition';

function issuesOf(def: unknown) {
  try {
    validateDefinition(def);
  } catch (e) {
    expect(e).toBeInstanceOf(SpindleError);
    expect((e as SpindleError).code).toBe('invalid_definition');
    return (e as SpindleError).issues ?? [];
  }
  throw new Error('definition was accepted');
}

const ok = {
  kind: 'graph',
  nodes: [
    { id: 'greet', type: 'set', values: { greeting: 'hi {{input.name}}' } },
    { id: 'check', type: 'condition', expression: 'size(greeting) > 3' },
    { id: 'answer', type: 'llm', model: 'offline:echo', prompt: '{{greeting}}' },
  ],
  edges: [
    { from: 'greet', to: 'check' },
    { from: 'check', to: 'answer', handle: 'true' },
  ],
};

describe('validateDefinition', () => {
  it('accepts a valid graph and applies defaults', () => {
    const def = validateDefinition(ok);
    const llm = def.kind === 'graph' ? def.nodes.find((n) => n.id === 'answer') : undefined;
    expect(llm).toMatchObject({ output_key: 'output', stream: false });
  });

  it('names the node and field of an unknown node type', () => {
    const issues = issuesOf({ ...ok, nodes: [...ok.nodes, { id: 'x', type: 'teleport' }] });
    expect(issues[0]).toMatchObject({ node: 'x', field: 'nodes[3].type' });
  });

  it('names the node and field of a missing required field', () => {
    const issues = issuesOf({ kind: 'graph', nodes: [{ id: 'a', type: 'llm', model: 'offline:echo' }] });
    expect(issues).toContainEqual(expect.objectContaining({ node: 'a', field: 'nodes[0].prompt' }));
  });

  it('refuses duplicate ids, edges to missing nodes and bad handles', () => {
    const issues = issuesOf({
      kind: 'graph',
      nodes: [
        { id: 'a', type: 'set', values: { x: 1 } },
        { id: 'a', type: 'set', values: { y: 1 } },
      ],
      edges: [
        { from: 'a', to: 'ghost' },
        { from: 'a', to: 'a', handle: 'true' },
      ],
    });
    expect(issues.map((i) => i.field)).toEqual(expect.arrayContaining(['nodes[1].id', 'edges[0].to', 'edges[1].handle']));
    expect(issues.find((i) => i.field === 'edges[0].to')?.node).toBe('ghost');
  });

  it('refuses unreachable nodes', () => {
    const issues = issuesOf({ ...ok, edges: [{ from: 'greet', to: 'check' }] });
    expect(issues).toEqual([expect.objectContaining({ node: 'answer', field: 'nodes[2]' })]);
  });

  it('refuses an expression that does not parse', () => {
    const issues = issuesOf({ ...ok, nodes: [ok.nodes[0], { id: 'check', type: 'condition', expression: 'a >' }, ok.nodes[2]] });
    expect(issues[0]).toMatchObject({ node: 'check', field: 'nodes[1].expression' });
  });

  it('refuses unknown fields on a node', () => {
    const issues = issuesOf({ kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 }, valeus: {} }] });
    expect(issues[0]).toMatchObject({ node: 'a', message: expect.stringContaining('valeus') });
  });
});

describe('validateDefinition: bounded expressions and schemas', () => {
  const withNode = (node: Record<string, unknown>) => ({ kind: 'graph', nodes: [node] });

  it('refuses a matches() pattern RE2 cannot run, naming node and field', () => {
    const issues = issuesOf(withNode({ id: 'check', type: 'condition', expression: 'input.text.matches("(a)\\\\1")' }));
    expect(issues[0]).toMatchObject({
      node: 'check',
      field: 'nodes[0].expression',
      message: expect.stringMatching(/not a valid RE2 pattern/),
    });
  });

  it('refuses an expression over a limit, naming the limit', () => {
    const issues = issuesOf(
      withNode({ id: 'route', type: 'router', routes: [{ handle: 'a', when: 'l.all(x, l.all(y, l.all(z, true)))' }] }),
    );
    expect(issues[0]).toMatchObject({
      node: 'route',
      field: 'nodes[0].routes[0].when',
      message: expect.stringMatching(/MAX_COMPREHENSION_NESTING/),
    });
  });

  it('refuses JSON Schemas whose patterns RE2 cannot run, in a human form too', () => {
    const human = issuesOf(
      withNode({ id: 'ask', type: 'human', prompt: 'Name?', form: 'json', schema: { type: 'string', pattern: '^(?!root)' } }),
    );
    expect(human[0]).toMatchObject({ node: 'ask', field: 'nodes[0].schema', message: expect.stringMatching(/not a valid RE2 pattern/) });
    const params = issuesOf({
      ...ok,
      parameters: { type: 'object', properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`p${i}`, { type: 'string' }])) },
    });
    expect(params[0]).toMatchObject({ field: 'parameters', message: expect.stringMatching(/MAX_JSON_SCHEMA_NODES/) });
  });

  it('refuses more schema values than MAX_DEFINITION_SCHEMA_NODES across the definition, before compiling any', () => {
    const schema = { type: 'object', properties: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}`, { type: 'string' }])) };
    const agents = Array.from({ length: 30 }, (_, i) => ({ id: `a${i}`, type: 'agent', model: 'offline:echo', structured: schema }));
    const issues = issuesOf({ kind: 'graph', nodes: agents, edges: agents.slice(1).map((a, i) => ({ from: agents[i].id, to: a.id })) });
    expect(issues).toEqual([expect.objectContaining({ field: '(root)', message: expect.stringMatching(/MAX_DEFINITION_SCHEMA_NODES/) })]);
  });

  it('accepts a catastrophic-looking pattern RE2 runs in linear time', () => {
    expect(() =>
      validateDefinition({ ...ok, parameters: { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } } }),
    ).not.toThrow();
  });
});
