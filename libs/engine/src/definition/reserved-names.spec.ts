import { validateDefinition } from './validate-definition';

/** Issue 9: names that are JavaScript prototype keys never become keys of anything. */
describe('reserved names in a definition', () => {
  const refusal = (definition: unknown) => {
    try {
      validateDefinition(definition);
    } catch (e) {
      return e as { code: string; issues: Array<{ field: string; message: string }> };
    }
    throw new Error('the definition was accepted');
  };
  const graph = (...nodes: unknown[]) => ({ kind: 'graph', nodes });

  it.each([
    ['a node id', graph({ id: 'constructor', type: 'set', values: { x: 1 } }), 'nodes[0].id'],
    [
      'an output key',
      graph({ id: 'ask', type: 'llm', model: 'offline:echo', prompt: 'hi', output_key: '__proto__' }),
      'nodes[0].output_key',
    ],
    ['a state key a set node writes', graph({ id: 's', type: 'set', values: { toString: 1 } }), 'nodes[0].values.toString'],
    ['a subgraph workflow', graph({ id: 'sub', type: 'subgraph', workflow: 'constructor' }), 'nodes[0].workflow'],
    [
      'a fork branch',
      graph({ id: 'f', type: 'fork', branches: { prototype: { nodes: [{ id: 'b', type: 'set', values: { y: 1 } }] } } }),
      'nodes[0].branches.prototype',
    ],
    ['a pattern agent', { kind: 'sequential', agents: [{ name: 'valueOf', model: 'offline:echo', instructions: 'x' }] }, 'agents[0].name'],
  ])('refuses %s', (_what, definition, field) => {
    const error = refusal(definition);
    expect(error.code).toBe('invalid_definition');
    expect(error.issues).toContainEqual(expect.objectContaining({ field, message: expect.stringContaining('reserved') }));
  });

  it('accepts the same names spelled as ordinary identifiers', () => {
    expect(() => validateDefinition(graph({ id: 'constructor_step', type: 'set', values: { to_string: 1 } }))).not.toThrow();
  });
});
