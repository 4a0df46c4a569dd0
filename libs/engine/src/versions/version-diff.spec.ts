import { diffVersions, MAX_TEXT_DIFF_EDITS } from './version-diff';

const labels = { before: 'w v1', after: 'w v2' };
const v1 = {
  kind: 'graph',
  nodes: [
    { id: 'draft', type: 'llm', model: 'm', prompt: 'Write about {{topic}}' },
    { id: 'review', type: 'human', prompt: 'ok?' },
    { id: 'loop', type: 'loop', body: { nodes: [{ id: 'inner', type: 'set', values: { x: 1 } }], edges: [] } },
  ],
  edges: [
    { from: 'draft', to: 'review' },
    { from: 'review', to: 'loop', handle: 'default' },
  ],
};

describe('diffVersions', () => {
  it('matches nodes by id and edges by ends and handle, so an insertion is one added node', () => {
    const v2 = structuredClone(v1);
    v2.nodes.splice(1, 0, { id: 'outline', type: 'set', values: { y: 2 } } as never);
    v2.edges = [
      { from: 'draft', to: 'outline' },
      { from: 'outline', to: 'review' },
      { from: 'review', to: 'loop', handle: 'default' },
    ];
    const diff = diffVersions(v1, v2, labels);
    expect(diff.identical).toBe(false);
    expect(diff.nodes).toEqual({ added: ['outline'], removed: [], changed: [] });
    expect(diff.edges).toEqual({ added: ['draft->outline', 'outline->review'], removed: ['draft->review'] });
    expect(diff.changes).toContainEqual({ op: 'added', path: '/nodes/outline', after: { id: 'outline', type: 'set', values: { y: 2 } } });
  });

  it('names the changed field of a node, nested ones included, with both values', () => {
    const v2 = structuredClone(v1);
    v2.nodes[0].prompt = 'Write briefly about {{topic}}';
    (v2.nodes[2].body as { nodes: Array<{ values: { x: number } }> }).nodes[0].values.x = 2;
    delete (v2.nodes[1] as { prompt?: string }).prompt;
    const diff = diffVersions(v1, v2, labels);
    expect(diff.nodes).toEqual({ added: [], removed: [], changed: ['draft', 'review', 'inner'] });
    expect(diff.changes).toEqual([
      { op: 'changed', path: '/nodes/draft/prompt', before: 'Write about {{topic}}', after: 'Write briefly about {{topic}}' },
      { op: 'removed', path: '/nodes/review/prompt', before: 'ok?' },
      { op: 'changed', path: '/nodes/loop/body/nodes/inner/values/x', before: 1, after: 2 },
    ]);
    expect(diff.text).toContain('-      "prompt": "Write about {{topic}}"');
    expect(diff.text).toContain('+      "prompt": "Write briefly about {{topic}}"');
  });

  it('is identical, with an empty text diff, whatever the key order', () => {
    const reordered = { edges: v1.edges, nodes: v1.nodes.map((n) => Object.fromEntries(Object.entries(n).reverse())), kind: 'graph' };
    const diff = diffVersions(v1, reordered, labels);
    expect(diff).toMatchObject({ identical: true, changes: [], nodes: { added: [], removed: [], changed: [] } });
    expect(diff.text).not.toMatch(/^[-+] /m);
  });

  it('lists the elements of a list that one side leaves out, as against an empty one', () => {
    const single = { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: {} }] };
    const linked = { ...single, nodes: [...single.nodes, { id: 'b', type: 'set', values: {} }], edges: [{ from: 'a', to: 'b' }] };
    expect(diffVersions(single, linked, labels).edges).toEqual({ added: ['a->b'], removed: [] });
    expect(diffVersions(linked, single, labels).edges).toEqual({ added: [], removed: ['a->b'] });
    expect(diffVersions({ tools: [] }, {}, labels).changes).toEqual([{ op: 'removed', path: '/tools', before: [] }]);
  });

  it('compares arrays without a unique key by position, and values of different types as changed', () => {
    const diff = diffVersions(
      { tags: ['a', 'b'], n: 1, agents: [{ name: 'x' }, { name: 'x' }] },
      { tags: ['a'], n: '1', agents: [{ name: 'x' }] },
      labels,
    );
    expect(diff.changes).toEqual([
      { op: 'removed', path: '/agents/1', before: { name: 'x' } },
      { op: 'changed', path: '/n', before: 1, after: '1' },
      { op: 'removed', path: '/tags/1', before: 'b' },
    ]);
  });

  it("names a pattern's catalog agents by ref, so a pin's change is a change of that agent's version", () => {
    const before = { kind: 'sequential', agents: [{ ref: 'writer', version: 1 }, { ref: 'editor' }], manager: { ref: 'lead' } };
    const after = {
      kind: 'sequential',
      agents: [
        { ref: 'editor', version: { parameter: 'editor_version' } },
        { ref: 'writer', version: 2 },
      ],
      manager: { ref: 'lead', version: 4 },
    };
    expect(diffVersions(before, after, labels).changes).toEqual([
      { op: 'changed', path: '/agents/writer/version', before: 1, after: 2 },
      { op: 'added', path: '/agents/editor/version', after: { parameter: 'editor_version' } },
      { op: 'added', path: '/manager/version', after: 4 },
    ]);
  });

  it('escapes / and ~ in keys the way JSON Pointer does, and treats a __proto__ key as data', () => {
    const before = JSON.parse('{"values":{"a/b":1,"c~d":1,"__proto__":{"x":1}}}');
    const after = JSON.parse('{"values":{"a/b":2,"c~d":2,"__proto__":{"x":2}}}');
    expect(diffVersions(before, after, labels).changes.map((c) => c.path)).toEqual(['/values/__proto__/x', '/values/a~1b', '/values/c~0d']);
  });

  it('leaves the text diff out when it would be longer than the limit, and still lists the changes', () => {
    const many = (offset: number) => ({
      values: Object.fromEntries(Array.from({ length: MAX_TEXT_DIFF_EDITS }, (_, i) => [`k${i}`, i + offset])),
    });
    const diff = diffVersions(many(0), many(1), labels);
    expect(diff.text).toBeNull();
    expect(diff.changes).toHaveLength(MAX_TEXT_DIFF_EDITS);
  });
});
