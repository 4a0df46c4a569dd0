import { gatewayMigrations, type GatewayTables } from '@spindle/db';
import { openTestSchema, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { AgentCatalogRepository } from '../catalogs/agent-catalog.repository';
import { resolveAgentRefs } from '../catalogs/agent-refs.resolver';
import { WorkflowCatalogRepository } from '../catalogs/workflow-catalog.repository';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';

const T = 'default';

describe('what a start reads on Postgres: the catalogs and the idempotency keys', () => {
  let db: Kysely<GatewayTables>;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await openTestSchema<GatewayTables>('gateway', testNamespace(), gatewayMigrations));
    const now = new Date();
    await db.insertInto('tenants').values({ id: 'acme', name: 'Acme', operator: false, created_at: now, updated_at: now }).execute();
  });
  afterAll(() => drop());

  it('appends a version per changed definition, keeps an unchanged save idempotent, and soft-deletes', async () => {
    const catalog = new WorkflowCatalogRepository(db);
    expect(await catalog.save(T, 'wf', { v: 1 })).toEqual({ version: 1, created: true });
    expect(await catalog.save(T, 'wf', { v: 1 })).toEqual({ version: 1, created: false });
    expect(await catalog.save(T, 'wf', { v: 2 })).toEqual({ version: 2, created: true });
    expect((await catalog.find(T, 'wf'))?.definition).toEqual({ v: 2 });
    expect((await catalog.find(T, 'wf', 1))?.definition).toEqual({ v: 1 });
    expect(await catalog.find(T, 'wf', 3)).toBeUndefined();
    expect((await catalog.versions(T, 'wf')).map((v) => v.version)).toEqual([2, 1]);
    expect(await catalog.delete(T, 'wf')).toBe(true);
    expect(await catalog.find(T, 'wf')).toBeUndefined();
    expect(await catalog.list(T)).toEqual([]);
    expect(await catalog.save(T, 'wf', { v: 2 })).toEqual({ version: 3, created: true });
  });

  it('both catalogs call a save unchanged by one rule: the live entry holds the same value, keys in any order', async () => {
    const workflows = new WorkflowCatalogRepository(db);
    const agents = new AgentCatalogRepository(db);
    const spec = { name: 'same-rule', model: 'offline:echo', instructions: 'hi', tools: ['a', 'b'] };
    const reordered = { tools: ['a', 'b'], instructions: 'hi', model: 'offline:echo', name: 'same-rule' };
    for (const save of [(v: object) => workflows.save(T, 'same-rule', v), (v: object) => agents.save(T, v as never)]) {
      expect(await save(spec)).toEqual({ version: 1, created: true });
      expect(await save(reordered)).toEqual({ version: 1, created: false });
      expect(await save({ ...spec, tools: ['b', 'a'] })).toEqual({ version: 2, created: true });
    }
    expect(await workflows.delete(T, 'same-rule')).toBe(true);
    expect(await agents.delete(T, 'same-rule')).toBe(true);
    expect(await workflows.save(T, 'same-rule', { ...spec, tools: ['b', 'a'] })).toEqual({ version: 3, created: true });
    expect(await agents.save(T, { ...spec, tools: ['b', 'a'] } as never)).toEqual({ version: 3, created: true });
    await workflows.delete(T, 'same-rule');
    await agents.delete(T, 'same-rule');
  });

  it("keeps each tenant's names apart: the same name is two workflows and two agents, neither sees the other", async () => {
    const catalog = new WorkflowCatalogRepository(db);
    expect(await catalog.save('acme', 'shared', { owner: 'acme' })).toEqual({ version: 1, created: true });
    expect(await catalog.save(T, 'shared', { owner: 'default' })).toEqual({ version: 1, created: true });
    expect((await catalog.find('acme', 'shared'))?.definition).toEqual({ owner: 'acme' });
    expect((await catalog.list('acme')).map((w) => w.name)).toEqual(['shared']);
    expect(await catalog.delete('acme', 'shared')).toBe(true);
    expect((await catalog.find(T, 'shared'))?.definition).toEqual({ owner: 'default' });

    const agents = new AgentCatalogRepository(db);
    const spec = (instructions: string) => ({ name: 'helper', model: 'offline:echo', instructions }) as never;
    await agents.save('acme', spec('acme'));
    await agents.save(T, spec('default'));
    expect((await agents.find('acme', 'helper'))?.spec).toMatchObject({ instructions: 'acme' });
    expect((await agents.list(T)).map((a) => (a.spec as { instructions: string }).instructions)).toEqual(['default']);
  });

  it('resolves a pin to the stored version it names, a parameter to the version the run gives, and refuses one that is gone', async () => {
    const agents = new AgentCatalogRepository(db);
    const writer = (instructions: string) => ({ name: 'pinned_writer', model: 'offline:echo', instructions }) as never;
    await agents.save(T, writer('first'));
    await agents.save(T, writer('second'));
    const definition = {
      kind: 'sequential',
      parameters: { type: 'object', properties: { v: { type: 'integer', default: 2 } } },
      agents: [{ ref: 'pinned_writer', version: 1 }, { ref: 'pinned_writer' }, { ref: 'pinned_writer', version: { parameter: 'v' } }],
    };
    const resolved = (await resolveAgentRefs(agents, T, definition, { v: 1 })) as { agents: unknown[] };
    expect(resolved.agents).toEqual([
      expect.objectContaining({ instructions: 'first', agent: { name: 'pinned_writer', version: 1 } }),
      expect.objectContaining({ instructions: 'second', agent: { name: 'pinned_writer', version: 2 } }),
      expect.objectContaining({ instructions: 'first', agent: { name: 'pinned_writer', version: 1 } }),
    ]);
    // Saving: the parameter's default chooses.
    expect(((await resolveAgentRefs(agents, T, definition)) as { agents: unknown[] }).agents[2]).toMatchObject({ instructions: 'second' });
    // Another tenant has no such agent.
    await expect(resolveAgentRefs(agents, 'acme', definition)).rejects.toMatchObject({
      code: 'invalid_definition',
      issues: [{ field: 'agents[0].ref' }, { field: 'agents[1].ref' }, { field: 'agents[2].ref' }],
    });
    await expect(resolveAgentRefs(agents, T, definition, { v: 7 })).rejects.toMatchObject({
      issues: [{ field: 'agents[2].version', message: 'agent "pinned_writer" has no version 7 (chosen by parameter "v")' }],
    });
    // A deleted agent keeps its versions in the table, but no pin to it holds.
    await agents.delete(T, 'pinned_writer');
    await expect(resolveAgentRefs(agents, T, { ...definition, agents: [{ ref: 'pinned_writer', version: 1 }] })).rejects.toMatchObject({
      issues: [{ field: 'agents[0].ref', message: 'no agent named "pinned_writer" in the agent catalog' }],
    });
  });

  it('gives one concurrent claim of an idempotency key and releases it only for its run', async () => {
    const keys = new IdempotencyKeysRepository(db, 24);
    const claims = await Promise.all(['run-a', 'run-b', 'run-c'].map((runId) => keys.claim(T, 'k1', 'hash-1', runId, { runId })));
    expect(claims.filter(Boolean)).toHaveLength(1);
    const held = await keys.find(T, 'k1');
    expect(held?.requestHash).toBe('hash-1');
    // Another tenant's key of the same text is its own.
    expect(await keys.find('acme', 'k1')).toBeUndefined();
    expect(await keys.claim('acme', 'k1', 'hash-2', 'run-acme', {})).toBe(true);
    await keys.release(T, 'k1', 'someone-else');
    expect(await keys.find(T, 'k1')).toBeDefined();
    await keys.release(T, 'k1', held!.runId);
    expect(await keys.find(T, 'k1')).toBeUndefined();
    expect((await keys.find('acme', 'k1'))?.runId).toBe('run-acme');
  });

  it('treats a key past its time to live as free', async () => {
    const keys = new IdempotencyKeysRepository(db, 24);
    await keys.claim(T, 'old', 'h', 'run-old', {});
    await db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(Date.now() - 25 * 3_600_000) })
      .where('key', '=', 'old')
      .execute();
    expect(await keys.find(T, 'old')).toBeUndefined();
    expect(await keys.claim(T, 'old', 'h2', 'run-new', {})).toBe(true);
    expect((await keys.find(T, 'old'))?.runId).toBe('run-new');
  });
});
