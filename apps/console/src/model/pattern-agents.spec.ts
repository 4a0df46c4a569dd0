import { describe, expect, it } from 'vitest';
import { agentGraph } from './pattern-agents';

const edges = (def: unknown) => agentGraph(def, 'w', 1)?.edges.map((e) => `${e.from} -${e.handle}-> ${e.to}`);
const agents = (...names: string[]) => names.map((name) => ({ name, model: 'offline:echo' }));

describe('a pattern drawn as its agents', () => {
  it('chains a sequence, and fans a concurrent pattern out and into its aggregator', () => {
    expect(edges({ kind: 'sequential', agents: agents('draft', 'edit') })).toEqual([
      'input -input-> draft',
      'draft -answer-> edit',
      'edit -answer-> output',
    ]);
    expect(edges({ kind: 'concurrent', agents: agents('a', 'b'), aggregator: { name: 'judge', model: 'x' } })).toEqual([
      'input -input-> a',
      'input -input-> b',
      'a -answer-> judge',
      'b -answer-> judge',
      'judge -combined-> output',
    ]);
  });

  it('lets every agent of a handoff team pass to every other, starting with the named one', () => {
    const graph = agentGraph({ kind: 'handoff', agents: agents('front', 'billing', 'tech'), start: 'billing' }, 'w', 1);
    expect(graph?.edges.filter((e) => e.handle === 'hands off')).toHaveLength(6);
    expect(graph?.edges[0]).toEqual({ from: 'input', to: 'billing', handle: 'first turn', back: false });
    expect(graph?.nodes.map((n) => [n.id, n.type, n.rank, n.order])).toEqual([
      ['input', 'start', 0, 0],
      ['front', 'agent', 1, 0],
      ['billing', 'agent', 1, 1],
      ['tech', 'agent', 1, 2],
      ['output', 'end', 2, 0],
    ]);
  });

  it('puts a manager between the task and its agents, who answer back to it', () => {
    expect(edges({ kind: 'group_chat', agents: agents('poet'), manager: { name: 'host', model: 'x' } })).toEqual([
      'input -task-> host',
      'host -picks-> poet',
      'poet -speaks-> host',
      'host -FINISH-> output',
    ]);
    const magentic = agentGraph({ kind: 'magentic', agents: agents('coder'), manager: { name: 'lead', model: 'x' } }, 'w', 1);
    expect(magentic?.edges.find((e) => e.from === 'coder')).toEqual({ from: 'coder', to: 'lead', handle: 'reports', back: true });
  });

  it('names a catalog agent by its reference, and shows what version it pins', () => {
    const def = {
      kind: 'group_chat',
      agents: [{ ref: 'triage', version: 3 }, { ref: 'billing' }],
      manager: { ref: 'host', version: { parameter: 'host_version' } },
    };
    expect(edges({ ...def, kind: 'sequential' })).toEqual([
      'input -input-> triage',
      'triage -answer-> billing',
      'billing -answer-> output',
    ]);
    expect(agentGraph(def, 'w', 1)?.nodes.map((n) => [n.id, n.label])).toEqual([
      ['input', 'input'],
      ['host', 'host v from host_version'],
      ['triage', 'triage v3'],
      ['billing', 'billing'],
      ['output', 'output'],
    ]);
  });

  it('draws nothing for a graph workflow or something that is no pattern', () => {
    expect(agentGraph({ kind: 'graph', nodes: [] }, 'w', 1)).toBeUndefined();
    expect(agentGraph(null, 'w', 1)).toBeUndefined();
    expect(agentGraph({ kind: 'handoff' }, 'w', 1)).toBeUndefined();
  });
});
