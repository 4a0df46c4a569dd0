import { validateDefinition } from './validate-definition';
import { namedCapabilities } from './named-capabilities';

describe('namedCapabilities', () => {
  it('lists what a pattern names with the field of each agent', () => {
    const def = validateDefinition({
      kind: 'concurrent',
      agents: [
        { name: 'a', model: 'openai:gpt-4o', tools: ['x'] },
        { name: 'b', model: 'openai:gpt-4o' },
      ],
      aggregator: { name: 'agg', model: 'openai:gpt-4o', tools: ['y'] },
    });
    expect(namedCapabilities(def).map((n) => [n.field, n.name])).toEqual([
      ['agents[0].tools[0]', 'x'],
      ['aggregator.tools[0]', 'y'],
    ]);
  });

  it('reads a definition as written too: defaults not applied, catalog agent references without tools', () => {
    const written = {
      kind: 'sequential' as const,
      agents: [{ ref: 'writer' }, { name: 'b', model: 'openai:gpt-4o', tools: ['z'] }],
    };
    expect(namedCapabilities(written as never)).toEqual([{ kind: 'tool', name: 'z', field: 'agents[1].tools[0]', node: 'b' }]);
  });
});
