import type { Dataset, DatasetItem, DatasetItemsAdded, RunEvent } from '@spindle/contracts';
import { eventually, startStack, type Stack } from '@spindle/testing';

const echo = { kind: 'graph', nodes: [{ id: 'reply', type: 'set', values: { answer: 'forty-two' } }] };

/** Datasets through the API: versions, items written out and taken from runs, and what is refused, all or nothing. */
describe('datasets: versioned items from files, runs and the API', () => {
  let stack: Stack;
  const json = async <T>(res: Response) => (await res.json()) as T;
  const put = (name: string, body: unknown = {}) => stack.api(`/v1/datasets/${name}`, { method: 'PUT', body: JSON.stringify(body) });
  const add = (name: string, body: unknown) => stack.api(`/v1/datasets/${name}/items`, { method: 'POST', body: JSON.stringify(body) });
  const items = async (name: string, query = '') =>
    json<{ version: number; items: DatasetItem[]; nextCursor: string | null }>(await stack.api(`/v1/datasets/${name}/items${query}`));
  const completedRun = async (input: unknown) => {
    const { runId } = await json<{ runId: string }>(
      await stack.api('/v1/workflows/echo/runs', { method: 'POST', body: JSON.stringify({ input }) }),
    );
    await eventually(async () => {
      const { events } = await json<{ events: RunEvent[] }>(await stack.api(`/v1/runs/${runId}/events`));
      expect(events.at(-1)?.type).toBe('run.completed');
    });
    return runId;
  };

  beforeAll(async () => {
    stack = await startStack();
    expect((await stack.api('/v1/workflows/echo', { method: 'PUT', body: JSON.stringify(echo) })).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('keeps every version: items added make the next one, a removed item stays in the versions before', async () => {
    expect((await put('capitals', { description: 'questions about capitals' })).status).toBe(201);
    expect((await put('capitals', { description: 'capitals of Europe' })).status).toBe(200);
    const first = await json<DatasetItemsAdded>(
      await add('capitals', {
        items: [
          { input: { q: 'France?' }, expected: 'Paris', metadata: { region: 'west' } },
          { input: { q: 'Italy?' }, expected: 'Rome' },
        ],
      }),
    );
    expect(first.version).toBe(1);
    const second = await add('capitals', { items: [{ input: { q: 'Spain?' }, expected: 'Madrid' }] });
    expect([second.status, (await json<DatasetItemsAdded>(second)).version]).toEqual([201, 2]);
    const removed = await stack.api(`/v1/datasets/capitals/items/${first.itemIds[1]}`, { method: 'DELETE' });
    expect(await json(removed)).toEqual({ version: 3 });
    expect((await items('capitals')).items.map((i) => i.expected)).toEqual(['Paris', 'Madrid']);
    expect((await items('capitals', '?version=2')).items.map((i) => i.expected)).toEqual(['Paris', 'Rome', 'Madrid']);
    expect((await items('capitals', '?version=1')).items.map((i) => [i.expected, i.metadata])).toEqual([
      ['Paris', { region: 'west' }],
      ['Rome', null],
    ]);
    const dataset = await json<Dataset>(await stack.api('/v1/datasets/capitals'));
    expect(dataset).toMatchObject({ name: 'capitals', description: 'capitals of Europe', version: 3, items: 2 });
    expect(await json<Dataset>(await stack.api('/v1/datasets/capitals?version=2'))).toMatchObject({ version: 3, items: 3 });
    const missing = await stack.api('/v1/datasets/capitals?version=9');
    expect([missing.status, (await json<{ code: string }>(missing)).code]).toEqual([404, 'version_not_found']);
    // Pages walk the version's items in order.
    const page = await items('capitals', '?version=2&limit=2');
    const rest = await items('capitals', `?version=2&limit=2&cursor=${page.nextCursor}`);
    expect([...page.items, ...rest.items].map((i) => i.expected)).toEqual(['Paris', 'Rome', 'Madrid']);
    expect(rest.nextCursor).toBeNull();
  });

  it('takes items from runs: the input, and the output as the expected one when asked', async () => {
    expect((await put('from-runs')).status).toBe(201);
    const runId = await completedRun({ q: 'meaning of life' });
    const added = await add('from-runs', {
      fromRuns: [
        { runId, withOutput: true },
        { runId, metadata: { note: 'input only' } },
      ],
    });
    expect(added.status).toBe(201);
    expect((await items('from-runs')).items.map((i) => [i.input, i.expected, i.sourceRunId])).toEqual([
      [{ q: 'meaning of life' }, { answer: 'forty-two', input: { q: 'meaning of life' } }, runId],
      [{ q: 'meaning of life' }, null, runId],
    ]);
  });

  it('refuses a request it cannot take whole, with a problem naming the item, and adds none of it', async () => {
    expect((await put('strict')).status).toBe(201);
    const refusals: Array<[unknown, number, string, string]> = [
      [{ items: [{ input: 'ok' }], fromRuns: [{ runId: '01JZZZZZZZZZZZZZZZZZZZZZZZ' }] }, 404, 'run_not_found', 'fromRuns[0].runId'],
      [{ items: [{ input: 'ok' }, { input: 'x'.repeat(300 * 1024) }] }, 413, 'payload_too_large', 'items[1]'],
      [{ items: [{ input: 'nul\u0000' }] }, 400, 'validation_failed', '(body)'],
      [{ items: [] }, 400, 'validation_failed', 'items'],
    ];
    for (const [body, status, code, field] of refusals) {
      const res = await add('strict', body);
      const problem = await json<{ code: string; errors?: Array<{ field: string }> }>(res);
      expect([res.status, problem.code, problem.errors?.[0]?.field]).toEqual([status, code, field]);
    }
    expect(await json<Dataset>(await stack.api('/v1/datasets/strict'))).toMatchObject({ version: 0, items: 0 });
    const unknown = await add('no-such-set', { items: [{ input: 1 }] });
    expect([unknown.status, (await json<{ code: string }>(unknown)).code]).toEqual([404, 'dataset_not_found']);
  });

  it('lists the tenant’s datasets and deletes one with its versions', async () => {
    expect((await put('short-lived')).status).toBe(201);
    const names = async () => (await json<{ datasets: Dataset[] }>(await stack.api('/v1/datasets'))).datasets.map((d) => d.name);
    expect(await names()).toEqual(expect.arrayContaining(['capitals', 'from-runs', 'short-lived']));
    expect((await stack.api('/v1/datasets/short-lived', { method: 'DELETE' })).status).toBe(204);
    expect(await names()).not.toContain('short-lived');
    expect((await stack.api('/v1/datasets/short-lived')).status).toBe(404);
  });
});
