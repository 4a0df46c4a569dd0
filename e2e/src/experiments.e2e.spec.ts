import type { Experiment, ExperimentComparison, ExperimentItem, Score } from '@spindle/contracts';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { eventually, launchChromium, signInWithKey, startStack, type Stack } from '@spindle/testing';
import type { Browser } from 'playwright-core';

const SHOTS = resolve(__dirname, '../..', process.env.SPINDLE_SCREENSHOTS ?? 'tmp/screenshots');

/** v1 always says Paris; v2 echoes the capital it is given (a prompt that uses the input): v2 is the better version. */
const v1 = { kind: 'graph', nodes: [{ id: 'reply', type: 'set', values: { answer: 'Paris' } }] };
const v2 = {
  kind: 'graph',
  nodes: [{ id: 'reply', type: 'llm', model: 'offline:echo', prompt: '{{input.capital}}', output_key: 'answer' }],
};
/** Each run looks an order up; the plugin reports $0.0001 a lookup. */
const costly = {
  kind: 'graph',
  nodes: [{ id: 'lookup', type: 'tool', tool: 'lookup_order', args: { orderId: 'A-1002' } }],
};
const countries = [
  ['France', 'Paris'],
  ['Italy', 'Rome'],
  ['Norway', 'Oslo'],
  ['Spain', 'Madrid'],
];
const correct = [{ type: 'exact_match', name: 'correct', path: 'answer' }];

describe('experiments: a dataset run through two versions, judged, and compared item by item', () => {
  let stack: Stack;
  const json = async <T>(res: Response) => (await res.json()) as T;
  const post = (path: string, body: unknown) => stack.api(path, { method: 'POST', body: JSON.stringify(body) });
  const experiment = async (body: unknown) => {
    const res = await post('/v1/experiments', body);
    expect(res.status).toBe(201);
    return json<Experiment>(res);
  };
  const ended = async (id: string) => {
    let last: Experiment | undefined;
    await eventually(async () => {
      last = await json<Experiment>(await stack.api(`/v1/experiments/${id}`));
      expect(last.status).not.toBe('running');
    }, 60_000);
    return last!;
  };

  beforeAll(async () => {
    stack = await startStack({ runnerEnv: { SPINDLE_PLUGINS: 'examples/plugins/order-lookup.js' } });
    for (const [name, definition] of [
      ['capital', v1],
      ['capital', v2],
      ['lookups', costly],
    ] as const)
      expect((await stack.api(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(definition) })).status).toBe(201);
    expect((await stack.api('/v1/datasets/capitals', { method: 'PUT', body: '{}' })).status).toBe(201);
    const items = countries.map(([country, capital]) => ({ input: { country, capital }, expected: capital }));
    expect((await post('/v1/datasets/capitals/items', { items })).status).toBe(201);
  });
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('runs each item once, judges it against the item’s expected output, and the comparison shows the better version', async () => {
    const first = await experiment({
      name: 'always Paris',
      dataset: 'capitals',
      workflow: 'capital',
      version: 1,
      evaluators: correct,
      concurrency: 2,
    });
    const second = await experiment({
      name: 'echo the capital',
      dataset: 'capitals',
      workflow: 'capital',
      version: 2,
      evaluators: correct,
    });
    expect(first).toMatchObject({
      status: 'running',
      dataset: { name: 'capitals', version: 1 },
      workflow: { name: 'capital', version: 1 },
    });
    const [a, b] = [await ended(first.experimentId), await ended(second.experimentId)];
    expect([a.status, a.summary.byStatus, a.summary.scores]).toEqual([
      'completed',
      { completed: 4 },
      { correct: { count: 4, mean: 0.25 } },
    ]);
    expect([b.status, b.summary.byStatus, b.summary.scores]).toEqual(['completed', { completed: 4 }, { correct: { count: 4, mean: 1 } }]);

    const { items } = await json<{ items: ExperimentItem[] }>(await stack.api(`/v1/experiments/${first.experimentId}/items`));
    expect(items.map((i) => [i.expected, i.output, i.scores])).toEqual(
      countries.map(([country, capital]) => [capital, { answer: 'Paris', input: { country, capital } }, { correct: capital === 'Paris' }]),
    );
    // The judgement is the run's score too, given on the experiment's evaluator's behalf.
    const scores = (await json<{ scores: Score[] }>(await stack.api(`/v1/runs/${items[1]!.runId}/scores`))).scores;
    expect(scores).toEqual([
      expect.objectContaining({
        name: 'correct',
        value: false,
        evaluator: { name: 'exact_match', version: `experiment ${first.experimentId}` },
      }),
    ]);

    const ids = `${first.experimentId},${second.experimentId}`;
    const comparison = await json<ExperimentComparison>(await stack.api(`/v1/experiments/compare?ids=${ids}`));
    expect(
      comparison.items.map((i) => [
        i.expected,
        i.results[first.experimentId]?.scores.correct,
        i.results[second.experimentId]?.scores.correct,
      ]),
    ).toEqual(countries.map(([, capital]) => [capital, capital === 'Paris', true]));
    const csv = await stack.api(`/v1/experiments/compare?ids=${ids}&format=csv`);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = (await csv.text()).trimEnd().split('\r\n');
    expect(rows).toHaveLength(5);
    expect(rows[0]).toContain(`${first.experimentId} correct`);

    // The console: pick both, compare; the better version's mean, and the items where they differ.
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(stack.gatewayUrl);
    await signInWithKey(page, stack.adminKey);
    await page.goto(`${stack.gatewayUrl}/#/experiments`);
    for (const id of [first.experimentId, second.experimentId]) await page.getByLabel(`pick ${id}`).check();
    await page.getByRole('button', { name: /Compare 2 selected/ }).click();
    const summary = page.getByTestId('comparison-summary');
    await summary.waitFor();
    const meanOf = (id: string) => summary.locator(`tr[data-experiment-id="${id}"] td[data-score="correct"]`).textContent();
    expect([await meanOf(first.experimentId), await meanOf(second.experimentId)]).toEqual(['0.25', '1.00']);
    await page.getByLabel('only items that differ').check();
    expect(await page.getByTestId('comparison-items').locator('tbody tr').count()).toBe(3);
    await page.screenshot({ path: `${SHOTS}/experiments-compare.png` });
    // Italy: v1 said Paris (false), v2 said Rome (true); each with its tokens, cost and wall time.
    expect(rows[2]).toMatch(
      /,Rome,completed,"\{[^,]*""capital"":""Rome"".*""answer"":""Paris""\}",false,0,0,\d+,completed,.*""answer"":""Rome""\}",true,2,0,\d+$/,
    );
  });

  it('stops starting items once the finished ones cost the budget, and says so', async () => {
    const run = await experiment({ dataset: 'capitals', workflow: 'lookups', concurrency: 1, maxCostUsd: 0.0001 });
    const done = await ended(run.experimentId);
    expect(done.status).toBe('budget_exceeded');
    expect(done.summary.byStatus).toEqual({ completed: 1, skipped: 3 });
    expect(done.summary.costUsd).toBeCloseTo(0.0001, 8);
  });

  it('refuses what it cannot run: an unknown workflow, version or dataset, an empty dataset version, too many at once', async () => {
    const refusal = async (body: unknown) => {
      const res = await post('/v1/experiments', body);
      return [res.status, (await json<{ code: string }>(res)).code];
    };
    expect(await refusal({ dataset: 'capitals', workflow: 'nope' })).toEqual([404, 'workflow_not_found']);
    expect(await refusal({ dataset: 'capitals', workflow: 'capital', version: 9 })).toEqual([404, 'version_not_found']);
    expect(await refusal({ dataset: 'nope', workflow: 'capital' })).toEqual([404, 'dataset_not_found']);
    expect((await stack.api('/v1/datasets/empty', { method: 'PUT', body: '{}' })).status).toBe(201);
    expect(await refusal({ dataset: 'empty', workflow: 'capital' })).toEqual([409, 'conflict']);
    expect(await refusal({ dataset: 'capitals', workflow: 'capital', concurrency: 50 })).toEqual([400, 'validation_failed']);
  });

  it('cancels a running experiment: nothing more starts', async () => {
    const run = await experiment({ dataset: 'capitals', workflow: 'capital', concurrency: 1 });
    const canceled = await post(`/v1/experiments/${run.experimentId}/cancel`, {});
    expect([canceled.status, (await json<Experiment>(canceled)).status]).toEqual([200, 'canceled']);
    const again = await post(`/v1/experiments/${run.experimentId}/cancel`, {});
    expect([again.status, (await json<{ code: string }>(again)).code]).toEqual([409, 'conflict']);
    const { items } = await json<{ items: ExperimentItem[] }>(await stack.api(`/v1/experiments/${run.experimentId}/items`));
    expect(items.filter((i) => i.status === 'skipped').length).toBeGreaterThanOrEqual(3);
  });
});
