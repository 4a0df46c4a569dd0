import type { RunEvent, RunTrace, Score } from '@spindle/contracts';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { launchChromium, signInWithKey, startStack, type Stack } from '@spindle/testing';
import type { Browser } from 'playwright-core';

const SHOTS = resolve(__dirname, '../..', process.env.SPINDLE_SCREENSHOTS ?? 'tmp/screenshots');

const answer = {
  kind: 'graph',
  nodes: [{ id: 'reply', type: 'llm', model: 'offline:echo', prompt: 'say {{input}}' }],
};

/** Scores through the API: a person's, on a run and on its model call, kept beside the trace and never in the log. */
describe('scores on runs and spans', () => {
  let stack: Stack;
  let runId: string;
  let modelSpan: string;
  const json = async <T>(res: Response) => (await res.json()) as T;
  const score = (body: unknown, headers: Record<string, string> = {}, api = stack.api) =>
    api(`/v1/runs/${runId}/scores`, { method: 'POST', body: JSON.stringify(body), headers });
  const log = async () => (await json<{ events: RunEvent[] }>(await stack.api(`/v1/runs/${runId}/events`))).events;

  beforeAll(async () => {
    stack = await startStack();
    expect((await stack.api('/v1/workflows/answer', { method: 'PUT', body: JSON.stringify(answer) })).status).toBe(201);
    runId = (await json<{ runId: string }>(await stack.api('/v1/workflows/answer/runs', { method: 'POST', body: '{"input":"hi"}' }))).runId;
    const deadline = Date.now() + 30_000;
    while ((await log()).at(-1)?.type !== 'run.completed') {
      if (Date.now() > deadline) throw new Error(`run ${runId} did not complete`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const trace = await json<RunTrace>(await stack.api(`/v1/runs/${runId}/trace`));
    modelSpan = trace.spans.find((s) => s.kind === 'model')!.spanId;
  });
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('keeps a number on the run and a boolean on its model call, by who gave them, oldest first, and the log is as it was', async () => {
    const before = await log();
    const first = await score({ name: 'helpfulness', value: 0.75, comment: 'answers, a bit curt' });
    expect(first.status).toBe(201);
    const second = await score({ name: 'correct', value: true, spanId: modelSpan });
    expect(second.status).toBe(201);
    const { scores } = await json<{ scores: Score[] }>(await stack.api(`/v1/runs/${runId}/scores`));
    expect(scores.map((s) => [s.name, s.value, s.dataType, s.spanId, s.comment, s.by.name])).toEqual([
      ['helpfulness', 0.75, 'numeric', null, 'answers, a bit curt', 'bootstrap admin'],
      ['correct', true, 'boolean', modelSpan, null, 'bootstrap admin'],
    ]);
    expect(await log()).toEqual(before);
    // The trace answers them too, beside the spans they name.
    const trace = await json<RunTrace>(await stack.api(`/v1/runs/${runId}/trace`));
    expect(trace.scores).toEqual(scores);
    const { entries } = await json<{ entries: Array<{ target: { id: string }; detail?: { scoreId?: string } }> }>(
      await stack.api('/v1/audit?action=score.recorded'),
    );
    expect(entries.filter((e) => e.target.id === runId).map((e) => e.detail?.scoreId)).toEqual(
      expect.arrayContaining(scores.map((s) => s.scoreId)),
    );
  });

  it('answers a keyed repeat with the stored score and refuses another body under that key', async () => {
    const body = { name: 'tone', value: 'friendly' };
    const first = await score(body, { 'idempotency-key': 'tone-1' });
    expect(first.status).toBe(201);
    const stored = await json<Score>(first);
    const again = await score(body, { 'idempotency-key': 'tone-1' });
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(await json<Score>(again)).toEqual(stored);
    const other = await score({ name: 'tone', value: 'rude' }, { 'idempotency-key': 'tone-1' });
    expect([other.status, (await json<{ code: string }>(other)).code]).toEqual([409, 'idempotency_key_reused']);
  });

  it('refuses what it cannot keep with a problem and a stable code, and keeps nothing of it', async () => {
    const refusals = [
      [{ name: 'Bad Name', value: 1 }, 400, 'validation_failed'],
      [{ name: 'ok', value: { nested: 1 } }, 400, 'validation_failed'],
      [{ name: 'ok', value: 1, spanId: 'no-such-span' }, 404, 'span_not_found'],
      // What Postgres cannot store is refused before it is asked: U+0000, half a surrogate pair.
      [{ name: 'ok', value: 1, comment: 'a\u0000b' }, 400, 'validation_failed'],
      [{ name: 'ok', value: 'x\ud800' }, 400, 'validation_failed'],
    ] as const;
    for (const [body, status, code] of refusals) {
      const res = await score(body);
      expect([res.status, res.headers.get('content-type')?.split(';')[0], (await json<{ code: string }>(res)).code]).toEqual([
        status,
        'application/problem+json',
        code,
      ]);
    }
    const unknownRun = await stack.api('/v1/runs/01JUNKNOWNRUN0000000000000/scores', {
      method: 'POST',
      body: JSON.stringify({ name: 'ok', value: 1 }),
    });
    expect(unknownRun.status).toBe(404);
    const { scores } = await json<{ scores: Score[] }>(await stack.api(`/v1/runs/${runId}/scores`));
    expect(scores.map((s) => s.name)).not.toContain('ok');
  });

  it('holds every score to its name’s config (kind, range, labels, strict names), from a person and an evaluator alike', async () => {
    const put = (name: string, body: unknown) => stack.api(`/v1/score-configs/${name}`, { method: 'PUT', body: JSON.stringify(body) });
    const refusal = async (res: Response) => {
      const p = await json<{ code: string; detail: string; errors?: Array<{ field: string }> }>(res);
      return [res.status, p.code, p.errors?.map((e) => e.field), p.detail];
    };
    expect((await put('quality', { dataType: 'numeric', min: 0, max: 1 })).status).toBe(201);
    expect((await put('quality', { dataType: 'numeric', min: 0, max: 5 })).status).toBe(200);
    expect((await put('tone', { dataType: 'categorical', categories: ['warm', 'curt'] })).status).toBe(201);
    expect(await refusal(await put('bad', { dataType: 'numeric', min: 2, max: 1 }))).toEqual([
      400,
      'validation_failed',
      ['max'],
      expect.any(String),
    ]);
    // Text Postgres cannot keep is refused before it is sent there.
    expect((await refusal(await put('noted', { dataType: 'boolean', description: 'a\u0000b' })))[0]).toBe(400);
    expect((await score({ name: 'quality', value: 4 })).status).toBe(201);
    expect(await refusal(await score({ name: 'quality', value: 6 }))).toEqual([
      400,
      'validation_failed',
      ['value'],
      'the score does not fit its config: "quality" is at most 5',
    ]);
    expect((await refusal(await score({ name: 'tone', value: 'hot' })))[2]).toEqual(['value']);
    expect((await refusal(await score({ name: 'quality', value: true })))[3]).toContain('"quality" is numeric, not boolean');
    expect((await score({ name: 'unheard', value: 1 })).status).toBe(201);
    expect((await stack.api('/v1/score-settings', { method: 'PUT', body: '{"strict":true}' })).status).toBe(200);
    expect((await refusal(await score({ name: 'unheard_again', value: 1 })))[2]).toEqual(['name']);
    const listed = await json<{ strict: boolean; configs: Array<{ name: string; max: number | null }> }>(
      await stack.api('/v1/score-configs'),
    );
    expect([listed.strict, listed.configs.map((c) => [c.name, c.max])]).toEqual([
      true,
      [
        ['quality', 5],
        ['tone', null],
      ],
    ]);
    // An evaluator's score is held to the same config: refused, it is the evaluation's failure.
    expect((await put('right', { dataType: 'numeric' })).status).toBe(201);
    const judged = { ...answer, evaluators: [{ type: 'contains', name: 'right', text: 'say' }] };
    expect((await stack.api('/v1/workflows/judged', { method: 'PUT', body: JSON.stringify(judged) })).status).toBe(201);
    const judgedRun = (
      await json<{ runId: string }>(await stack.api('/v1/workflows/judged/runs', { method: 'POST', body: '{"input":"x"}' }))
    ).runId;
    let evaluations: Array<{ status: string; error: string | null }> = [];
    const deadline = Date.now() + 30_000;
    while (evaluations.length === 0 || evaluations[0]!.status === 'pending') {
      if (Date.now() > deadline) throw new Error('the evaluation did not end');
      await new Promise((r) => setTimeout(r, 100));
      evaluations = (await json<{ evaluations: typeof evaluations }>(await stack.api(`/v1/runs/${judgedRun}/evaluations`))).evaluations;
    }
    expect(evaluations.map((e) => [e.status, e.error])).toEqual([
      ['failed', 'the score does not fit its config: "right" is numeric, not boolean'],
    ]);
    // Back as it was for what follows: names need no config, the ones made here are gone.
    expect((await stack.api('/v1/score-settings', { method: 'PUT', body: '{"strict":false}' })).status).toBe(200);
    for (const name of ['quality', 'tone', 'right'])
      expect((await stack.api(`/v1/score-configs/${name}`, { method: 'DELETE' })).status).toBe(204);
    expect((await stack.api('/v1/score-configs/quality', { method: 'DELETE' })).status).toBe(404);
  });

  it('lets a read-only key read the scores and not give one', async () => {
    const made = await stack.api('/v1/keys', { method: 'POST', body: JSON.stringify({ name: 'score reader', scopes: ['runs:read'] }) });
    const { key: secret } = await json<{ key: string }>(made);
    const reader = (path: string, init: RequestInit = {}) =>
      fetch(`${stack.gatewayUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...(init.headers as object) },
      });
    expect((await reader(`/v1/runs/${runId}/scores`)).status).toBe(200);
    const refused = await score({ name: 'sneaky', value: 1 }, {}, reader);
    expect([refused.status, (await json<{ code: string }>(refused)).code]).toEqual([403, 'forbidden']);
  });

  it('scores from the run page with the keyboard, on the run or the selected model call, and adds the run to a dataset', async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    await page.goto(stack.gatewayUrl);
    await signInWithKey(page, stack.adminKey);
    await page.goto(`${stack.gatewayUrl}/#/runs/${runId}`);
    const panel = page.getByTestId('scores');
    // The scores given through the API are listed.
    await panel.getByText('answers, a bit curt').waitFor();
    const rowsBefore = await panel.getByTestId('score-row').count();
    // `s` focuses the form; Enter gives the score.
    await page.locator('body').press('s');
    await page.keyboard.type('relevance');
    await page.keyboard.press('Tab');
    await page.keyboard.type('0.9');
    await page.keyboard.press('Tab');
    await page.keyboard.type('on topic');
    await page.keyboard.press('Enter');
    await panel.getByText('on topic').waitFor();
    // A model call selected on the timeline can be scored itself.
    await page.getByTestId('timeline').getByText('offline:echo').first().click();
    await panel.getByLabel('score name').fill('grounded');
    await panel.getByLabel('score value').fill('no');
    await panel.getByRole('checkbox').check();
    await panel.getByRole('button', { name: 'Give score' }).click();
    await panel.getByText('grounded').waitFor();
    // A span's score names the span as the timeline does.
    expect(await panel.getByTestId('score-row').last().textContent()).toContain('on model offline:echo');
    expect(await panel.getByTestId('score-row').count()).toBe(rowsBefore + 2);
    await page.screenshot({ path: `${SHOTS}/run-scores.png` });
    // One click adds the run to a dataset: its input, and its output as the expected one.
    expect((await stack.api('/v1/datasets/picked', { method: 'PUT', body: '{}' })).status).toBe(201);
    await page.reload();
    const adder = page.getByTestId('add-to-dataset');
    await adder.getByRole('button', { name: 'Add to dataset' }).click();
    await adder.getByText('added to picked: version 1').waitFor();
    const { items } = await json<{ items: Array<{ sourceRunId: string; input: unknown; expected: unknown }> }>(
      await stack.api('/v1/datasets/picked/items'),
    );
    expect(items).toEqual([
      expect.objectContaining({ sourceRunId: runId, input: 'hi', expected: expect.objectContaining({ input: 'hi' }) }),
    ]);
    const { scores } = await json<{ scores: Score[] }>(await stack.api(`/v1/runs/${runId}/scores`));
    expect(scores.slice(-2).map((s) => [s.name, s.value, s.spanId, s.comment])).toEqual([
      ['relevance', 0.9, null, 'on topic'],
      ['grounded', false, modelSpan, null],
    ]);
    // The overview follows each score by day and workflow version (the scores above are stored: no race).
    await page.goto(`${stack.gatewayUrl}/#/overview`);
    const trend = page.getByTestId('score-trend');
    await trend.waitFor();
    const relevance = trend.locator('tr', { hasText: 'relevance' });
    expect((await relevance.locator('td').allTextContents()).slice(2)).toEqual(['answer v1', '1', '0.90']);
  });
});
