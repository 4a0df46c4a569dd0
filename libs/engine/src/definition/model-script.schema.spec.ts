import { SpindleError } from '@spindle/contracts';
import { toGraph } from '../patterns/compile-pattern';
import { validateDefinition } from './validate-definition';

function issuesOf(def: unknown) {
  try {
    validateDefinition(def);
  } catch (e) {
    expect((e as SpindleError).code).toBe('invalid_definition');
    return (e as SpindleError).issues ?? [];
  }
  throw new Error('definition was accepted');
}

const graph = (node: Record<string, unknown>) => ({ kind: 'graph', nodes: [{ id: 'a', ...node }] });
const answer = [{ answer: 'done' }];

describe('script in a definition', () => {
  it('is accepted with offline:script on agent, llm and router nodes, defaults applied', () => {
    const def = validateDefinition({
      kind: 'graph',
      nodes: [
        {
          id: 'helper',
          type: 'agent',
          model: 'offline:script',
          tools: ['calculator'],
          script: [{ calls: [{ tool: 'calculator' }] }, { answer: 'done' }],
        },
        { id: 'summary', type: 'llm', model: 'offline:script', prompt: 'x', script: answer },
        {
          id: 'route',
          type: 'router',
          model: 'offline:script',
          script: [{ answer: { route: 'yes' } }],
          routes: [{ handle: 'yes', description: 'always' }],
        },
      ],
      edges: [
        { from: 'helper', to: 'summary' },
        { from: 'summary', to: 'route' },
      ],
    });
    const helper = def.kind === 'graph' ? def.nodes[0] : undefined;
    expect(helper).toMatchObject({ script: [{ calls: [{ tool: 'calculator', args: {} }] }, { answer: 'done' }] });
  });

  it('is required by offline:script and refused with any other model, naming node and field', () => {
    expect(issuesOf(graph({ type: 'agent', model: 'offline:script' }))).toEqual([
      expect.objectContaining({ node: 'a', field: 'nodes[0].script', message: 'model "offline:script" needs a script (its turns)' }),
    ]);
    expect(issuesOf(graph({ type: 'llm', model: 'offline:echo', prompt: 'x', script: answer }))).toEqual([
      expect.objectContaining({ node: 'a', field: 'nodes[0].script', message: 'a script is only for model "offline:script"' }),
    ]);
  });

  it('names the turn at fault', () => {
    const issues = issuesOf(
      graph({ type: 'agent', model: 'offline:script', script: [{ answer: 'x' }, { calls: [{ tool: 'bad name' }] }] }),
    );
    expect(issues).toEqual([expect.objectContaining({ node: 'a', field: 'nodes[0].script[1].calls[0].tool' })]);
  });

  it('is checked on pattern agents and managers, and a manager script reaches every node the manager becomes', () => {
    const team = [{ name: 'writer', model: 'offline:script', script: answer }];
    expect(issuesOf({ kind: 'group_chat', agents: team, manager: { name: 'lead', model: 'offline:script' } })).toEqual([
      expect.objectContaining({ field: 'manager.script' }),
    ]);

    const managerScript = [
      { when: 'stalled', answer: { facts: 'f', plan: ['p'] } },
      { answer: { is_done: true, is_progressing: true, answer: 'ok' } },
    ];
    const def = validateDefinition({
      kind: 'magentic',
      agents: team,
      manager: { name: 'lead', model: 'offline:script', script: managerScript },
    });
    const nodes = toGraph(def).nodes.flatMap((n) => (n.type === 'loop' ? [n, ...n.body.nodes] : [n]));
    const scripted = nodes.filter((n) => n.type === 'agent' && n.script !== undefined).map((n) => n.id);
    expect(scripted.sort()).toEqual(['lead-ledger', 'lead-plan', 'lead-replan', 'writer']);
  });
});
