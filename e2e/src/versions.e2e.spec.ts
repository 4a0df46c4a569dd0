import type { CatalogDiff, CatalogRolledBack, RunSummary } from '@spindle/contracts';
import { eventually, startStack, type Stack } from '@spindle/testing';

const v1 = {
  kind: 'graph',
  nodes: [
    { id: 'draft', type: 'set', values: { tone: 'formal' } },
    { id: 'publish', type: 'set', values: { published: true } },
  ],
  edges: [{ from: 'draft', to: 'publish' }],
};
const v2 = {
  kind: 'graph',
  nodes: [
    { id: 'draft', type: 'set', values: { tone: 'casual' } },
    { id: 'check', type: 'set', values: { checked: true } },
    { id: 'publish', type: 'set', values: { published: true } },
  ],
  edges: [
    { from: 'draft', to: 'check' },
    { from: 'check', to: 'publish' },
  ],
};

describe('versions you can compare and roll back', () => {
  let stack: Stack;
  const json = async <T>(res: Response) => ({ status: res.status, body: (await res.json()) as T });
  const get = async <T>(path: string) => json<T>(await stack.api(path));
  const send = async <T>(method: string, path: string, body: unknown) =>
    json<T>(await stack.api(path, { method, body: JSON.stringify(body) }));
  const problem = async (res: Promise<{ status: number; body: unknown }>) => {
    const { status, body } = await res;
    return { status, code: (body as { code?: string }).code };
  };

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('diffs two versions of a workflow by node, edge and field, with a text diff', async () => {
    expect((await send('PUT', '/v1/workflows/article', v1)).status).toBe(201);
    expect((await send('PUT', '/v1/workflows/article', v2)).status).toBe(201);

    const { status, body: diff } = await get<CatalogDiff>('/v1/workflows/article/versions/1/diff/2');
    expect(status).toBe(200);
    expect(diff).toMatchObject({
      name: 'article',
      from: 1,
      to: 2,
      identical: false,
      nodes: { added: ['check'], removed: [], changed: ['draft'] },
      edges: { added: ['draft->check', 'check->publish'], removed: ['draft->publish'] },
    });
    expect(diff.changes).toContainEqual({ op: 'changed', path: '/nodes/draft/values/tone', before: 'formal', after: 'casual' });
    expect(diff.text).toContain('--- article v1');
    expect(diff.text).toContain('+++ article v2');
    expect(diff.text).toContain('-        "tone": "formal"');
    expect(diff.text).toContain('+        "tone": "casual"');
    // The other way round, what was added is removed.
    const back = (await get<CatalogDiff>('/v1/workflows/article/versions/2/diff/1')).body;
    expect(back.nodes).toEqual({ added: [], removed: ['check'], changed: ['draft'] });
  });

  it('reads the version asked for, and tells an unknown version from an unknown workflow', async () => {
    const first = await get<{ version: number; definition: unknown }>('/v1/workflows/article?version=1');
    expect(first).toEqual({ status: 200, body: expect.objectContaining({ version: 1, definition: v1 }) });
    const latest = await get<{ version: number; definition: unknown }>('/v1/workflows/article');
    expect(latest.body).toMatchObject({ version: 2, definition: v2 });
    expect(await problem(get('/v1/workflows/article?version=9'))).toEqual({ status: 404, code: 'version_not_found' });
    expect(await problem(get('/v1/workflows/nothing-here?version=1'))).toEqual({ status: 404, code: 'workflow_not_found' });
    expect(await problem(get('/v1/workflows/article?version=zero'))).toEqual({ status: 400, code: 'validation_failed' });
    expect(await problem(get('/v1/workflows/article?versoin=1'))).toEqual({ status: 400, code: 'validation_failed' });
  });

  it('rolls a workflow back as a new version, audited, and a run says whether the version it ran is still current', async () => {
    const res = await stack.api('/v1/workflows/article/runs', { method: 'POST', body: '{}' });
    const { runId } = (await res.json()) as { runId: string };
    await eventually(async () => expect((await get<RunSummary>(`/v1/runs/${runId}`)).body.status).toBe('completed'));
    expect((await get<RunSummary>(`/v1/runs/${runId}`)).body).toMatchObject({ workflow: { version: 2 }, workflowLatestVersion: 2 });

    const rolled = await send<CatalogRolledBack>('POST', '/v1/workflows/article/rollback', { version: 1 });
    expect(rolled).toEqual({ status: 201, body: { name: 'article', version: 3, created: true, rolledBackTo: 1 } });
    expect((await get<{ version: number; definition: unknown }>('/v1/workflows/article')).body).toMatchObject({
      version: 3,
      definition: v1,
    });
    expect((await get<CatalogDiff>('/v1/workflows/article/versions/1/diff/3')).body).toMatchObject({ identical: true, changes: [] });
    // The run ran version 2, which is no longer the latest.
    expect((await get<RunSummary>(`/v1/runs/${runId}`)).body).toMatchObject({ workflow: { version: 2 }, workflowLatestVersion: 3 });
    // Rolling back to what already is the latest saves nothing.
    expect(await send('POST', '/v1/workflows/article/rollback', { version: 3 })).toEqual({
      status: 200,
      body: { name: 'article', version: 3, created: false, rolledBackTo: 3 },
    });
    const audit = await get<{ entries: Array<{ action: string; target: unknown; detail: unknown }> }>(
      '/v1/audit?action=workflow.rolled_back',
    );
    expect(audit.body.entries).toEqual([
      expect.objectContaining({ target: { kind: 'workflow', id: 'article' }, detail: { version: 3, rolledBackTo: 1 } }),
    ]);
  });

  it('refuses versions that do not exist, bodies that do not name one, and a rollback to a definition that no longer holds', async () => {
    for (const path of ['/v1/workflows/article/versions/1/diff/99', '/v1/workflows/article/versions/0/diff/1'])
      expect({ path, ...(await problem(get(path))) }).toEqual({ path, status: 404, code: 'version_not_found' });
    for (const version of ['01', '1e0', '2147483648', 'x'])
      expect({ version, ...(await problem(get(`/v1/workflows/article/versions/${version}/diff/1`))) }).toEqual({
        version,
        status: 404,
        code: 'version_not_found',
      });
    expect(await problem(get('/v1/workflows/nope/versions/1/diff/2'))).toEqual({ status: 404, code: 'workflow_not_found' });
    expect(await problem(send('POST', '/v1/workflows/article/rollback', { version: 99 }))).toEqual({
      status: 404,
      code: 'version_not_found',
    });
    expect(await problem(send('POST', '/v1/workflows/nope/rollback', { version: 1 }))).toEqual({ status: 404, code: 'workflow_not_found' });
    for (const body of [{}, { version: 0 }, { version: '1' }, { version: 1.5 }, { version: 1, extra: true }])
      expect({ body, ...(await problem(send('POST', '/v1/workflows/article/rollback', body))) }).toEqual({
        body,
        status: 400,
        code: 'validation_failed',
      });

    // A version that named an agent since deleted is checked like a save, and nothing is saved.
    expect((await send('PUT', '/v1/agents/helper', { model: 'offline:echo', instructions: 'help' })).status).toBe(201);
    const usesAgent = { kind: 'sequential', agents: [{ ref: 'helper' }] };
    expect((await send('PUT', '/v1/workflows/team', usesAgent)).status).toBe(201);
    expect((await send('PUT', '/v1/workflows/team', v1)).status).toBe(201);
    expect((await stack.api('/v1/agents/helper', { method: 'DELETE' })).status).toBe(204);
    expect(await problem(send('POST', '/v1/workflows/team/rollback', { version: 1 }))).toEqual({ status: 400, code: 'invalid_definition' });
    expect((await get<{ version: number }>('/v1/workflows/team')).body.version).toBe(2);
  });

  it('keeps every version of an agent, diffs them and rolls back', async () => {
    expect((await send('PUT', '/v1/agents/writer', { model: 'offline:echo', instructions: 'Be brief.' })).status).toBe(201);
    expect((await send('PUT', '/v1/agents/writer', { model: 'offline:echo', instructions: 'Be thorough.', max_turns: 4 })).status).toBe(
      201,
    );
    const versions = await get<{ versions: Array<{ version: number }> }>('/v1/agents/writer/versions');
    expect(versions.body.versions.map((v) => v.version)).toEqual([2, 1]);

    const diff = (await get<CatalogDiff>('/v1/agents/writer/versions/1/diff/2')).body;
    expect(diff.changes).toEqual([
      { op: 'changed', path: '/instructions', before: 'Be brief.', after: 'Be thorough.' },
      { op: 'changed', path: '/max_turns', before: 8, after: 4 },
    ]);

    expect(await send('POST', '/v1/agents/writer/rollback', { version: 1 })).toEqual({
      status: 201,
      body: { name: 'writer', version: 3, created: true, rolledBackTo: 1 },
    });
    expect((await get<{ version: number; spec: unknown }>('/v1/agents/writer')).body).toMatchObject({
      version: 3,
      spec: { name: 'writer', model: 'offline:echo', instructions: 'Be brief.' },
    });
    expect(await problem(send('POST', '/v1/agents/writer/rollback', { version: 9 }))).toEqual({ status: 404, code: 'version_not_found' });
    expect(await problem(get('/v1/agents/nobody/versions'))).toEqual({ status: 404, code: 'not_found' });
    expect(await problem(get('/v1/agents/nobody/versions/1/diff/2'))).toEqual({ status: 404, code: 'not_found' });
  });
});
