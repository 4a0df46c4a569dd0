import type { ListedFunction, ListedTool } from '@spindle/client';
import { describe, expect, it } from 'vitest';
import { capabilityView } from './runner-capabilities';

const runners = [{ id: 'runner-1', announcedAt: '2026-01-01T00:00:00.000Z' }];
const fn = (name: string): ListedFunction => ({ name, pure: true, plugin: { name: 'built-in', path: 'built-in' }, runners });
const tool = (name: string): ListedTool => ({
  name,
  description: 'adds\nand more',
  inputSchema: { type: 'object' },
  plugin: { name: 'calc', version: '1.0.0', path: 'calc.js' },
  runners,
});
const definition = {
  kind: 'graph',
  nodes: [
    { id: 'count', type: 'function', function: 'word_count' },
    { id: 'ask', type: 'agent', model: 'openai:gpt-4o', tools: ['calculator', 'lookup_order'] },
  ],
};

describe('the runners’ functions and tools beside a workflow', () => {
  it('lists the ones the workflow uses first, with the fields that name them', () => {
    const { rows } = capabilityView(definition, [fn('noop'), fn('word_count')], [tool('calculator')]);
    expect(rows.map((r) => [r.kind, r.name, r.plugin, r.usedAt])).toEqual([
      ['function', 'word_count', 'built-in', ['nodes[0].function']],
      ['tool', 'calculator', 'calc@1.0.0', ['nodes[1].tools[0]']],
      ['function', 'noop', 'built-in', []],
    ]);
  });

  it('says what the workflow names that no runner has, and nothing when no runner has announced itself', () => {
    expect(capabilityView(definition, [fn('word_count')], [tool('calculator')]).missing).toEqual([
      { kind: 'tool', name: 'lookup_order', field: 'nodes[1].tools[1]' },
    ]);
    expect(capabilityView(definition, [], []).missing).toEqual([]);
    expect(capabilityView('not a definition', [fn('noop')], []).missing).toEqual([]);
  });
});
