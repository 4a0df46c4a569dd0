import { describeGraph } from './describe-graph';
import { validateDefinition } from './validate-definition';
import type { GraphDefinition } from './workflow-definition.schema';

describe('describeGraph', () => {
  it('layers nodes from the entry, marks the loop edge as back, and writes Mermaid', () => {
    const def = validateDefinition({
      kind: 'graph',
      nodes: [
        { id: 'ask', type: 'llm', model: 'offline:echo', prompt: 'hi' },
        { id: 'check', type: 'condition', expression: 'size(output) > 3' },
        { id: 'done', type: 'set', values: { ok: true }, label: 'Done "ok"' },
      ],
      edges: [
        { from: 'ask', to: 'check' },
        { from: 'check', to: 'done', handle: 'true' },
        { from: 'check', to: 'ask', handle: 'false' },
      ],
    }) as GraphDefinition;
    const view = describeGraph(def);
    expect(view.nodes.map((n) => [n.id, n.rank])).toEqual([
      ['ask', 0],
      ['check', 1],
      ['done', 2],
    ]);
    expect(view.edges.find((e) => e.to === 'ask')).toMatchObject({ from: 'check', handle: 'false', back: true });
    expect(view.edges.filter((e) => e.back)).toHaveLength(1);
    expect(view.mermaid.split('\n')).toEqual([
      'flowchart TD',
      '  ask(["ask<br/><small>llm</small>"])',
      '  check{"check<br/><small>condition</small>"}',
      '  done["Done #quot;ok#quot;<br/><small>set</small>"]',
      '  ask --> check',
      '  check -->|true| done',
      '  check -.->|false| ask',
    ]);
  });
});
