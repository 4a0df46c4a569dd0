import { addDatasetItemsBodySchema } from '@spindle/contracts';
import { draftItems, type RunForItem } from './dataset-items';

const runs: Record<string, RunForItem> = {
  '01JAAAAAAAAAAAAAAAAAAAAAAA': { tenant: 'acme', input: { q: 'hi' }, status: 'completed', output: { a: 1 } },
  '01JBBBBBBBBBBBBBBBBBBBBBBB': { tenant: 'acme', input: { q: 'slow' }, status: 'running' },
  '01JCCCCCCCCCCCCCCCCCCCCCCC': { tenant: 'other', input: { q: 'theirs' }, status: 'completed', output: {} },
};
const read = async (runId: string) => runs[runId];
const body = (raw: unknown) => addDatasetItemsBodySchema.parse(raw);

describe('draftItems', () => {
  it('keeps written items as given and takes a run’s input, and its output only when asked', async () => {
    const drafts = await draftItems(
      'acme',
      body({
        items: [{ input: 1, expected: 2 }],
        fromRuns: [{ runId: '01JAAAAAAAAAAAAAAAAAAAAAAA', withOutput: true }, { runId: '01JBBBBBBBBBBBBBBBBBBBBBBB' }],
      }),
      read,
    );
    expect(drafts).toEqual([
      { input: 1, expected: 2 },
      { input: { q: 'hi' }, expected: { a: 1 }, sourceRunId: '01JAAAAAAAAAAAAAAAAAAAAAAA' },
      { input: { q: 'slow' }, sourceRunId: '01JBBBBBBBBBBBBBBBBBBBBBBB' },
    ]);
  });

  it('refuses another tenant’s run as not found, a run without output as a conflict, and an item over the limit', async () => {
    await expect(draftItems('acme', body({ fromRuns: [{ runId: '01JCCCCCCCCCCCCCCCCCCCCCCC' }] }), read)).rejects.toMatchObject({
      code: 'run_not_found',
      issues: [{ field: 'fromRuns[0].runId' }],
    });
    await expect(
      draftItems('acme', body({ fromRuns: [{ runId: '01JBBBBBBBBBBBBBBBBBBBBBBB', withOutput: true }] }), read),
    ).rejects.toMatchObject({ code: 'conflict', issues: [{ field: 'fromRuns[0].withOutput' }] });
    await expect(draftItems('acme', body({ items: [{ input: 'ok' }, { input: 'é'.repeat(600) }] }), read, 1_000)).rejects.toMatchObject({
      code: 'payload_too_large',
      issues: [{ field: 'items[1]' }],
    });
  });
});
