import { inEvaluatorSample, type RunEvaluation, type RunEvent, type RunSummary, type Score } from '@spindle/contracts';
import { eventually, launchChromium, signInWithKey, startStack, type Stack } from '@spindle/testing';
import type { Browser } from 'playwright-core';

/** A workflow that answers with a city and a total, judged by every built-in evaluator on completion. */
const judged = {
  kind: 'graph',
  nodes: [{ id: 'answer', type: 'set', values: { city: 'Paris', total: 41.5 } }],
  evaluators: [
    { type: 'exact_match', name: 'right_city', path: 'city', expected: 'Paris' },
    { type: 'json_schema', schema: { type: 'object', required: ['city', 'total'] } },
    { type: 'contains', path: 'city', text: 'par' },
    { type: 'regex', path: 'city', pattern: '^[A-Z][a-z]+$' },
    { type: 'numeric_tolerance', path: 'total', expected: 42, tolerance: 0.25 },
    { type: 'latency_below', maxMs: 60_000 },
    // Never sampled: no evaluation, no score.
    { type: 'cost_below', maxUsd: 1, sampleRate: 0 },
    // Cannot judge: the output has no such path.
    { type: 'exact_match', name: 'has_country', path: 'country', expected: 'France' },
  ],
};

describe('evaluators: built-ins judge completed runs after they end, as scores of the run', () => {
  let stack: Stack;
  const json = async <T>(res: Response) => (await res.json()) as T;
  const start = async (workflow: string) =>
    (await json<{ runId: string }>(await stack.api(`/v1/workflows/${workflow}/runs`, { method: 'POST', body: '{}' }))).runId;
  const log = async (runId: string) => (await json<{ events: RunEvent[] }>(await stack.api(`/v1/runs/${runId}/events`))).events;
  const scoresOf = async (runId: string) => (await json<{ scores: Score[] }>(await stack.api(`/v1/runs/${runId}/scores`))).scores;
  const evaluationsOf = async (runId: string) =>
    (await json<{ evaluations: RunEvaluation[] }>(await stack.api(`/v1/runs/${runId}/evaluations`))).evaluations;

  beforeAll(async () => {
    stack = await startStack({
      // The judge model: names the capital or not, said as the JSON its agent's schema asks for.
      reply: ((body: { messages: Array<{ role: string; content: unknown }> }) => {
        const asked = JSON.stringify(body.messages.at(-1)?.content ?? '');
        const right = asked.includes('Paris');
        return { text: JSON.stringify({ score: right ? 1 : 0, why: right ? 'names the capital' : 'another city' }) };
      }) as never,
      runnerEnv: { SPINDLE_MODEL_PRICES: '{"compatible:judge-model":{"inputPerMTok":2,"outputPerMTok":8}}' },
    });
    expect((await stack.api('/v1/workflows/judged', { method: 'PUT', body: JSON.stringify(judged) })).status).toBe(201);
  });
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('scores a completed run with each sampled evaluator, records the one that cannot judge, and leaves the log as it was', async () => {
    const runId = await start('judged');
    await eventually(async () => expect((await log(runId)).at(-1)?.type).toBe('run.completed'));
    const ended = await log(runId);
    // The projection folds run.completed after the log ends: an empty list is "not yet", not "all judged".
    const settled = async () => {
      const list = await evaluationsOf(runId);
      return list.length === 7 && list.every((e) => e.status !== 'pending');
    };
    await eventually(async () => expect(await settled()).toBe(true), 30_000);
    const evaluations = await evaluationsOf(runId);
    expect(evaluations.map((e) => [e.name, e.status])).toEqual([
      ['contains', 'done'],
      ['has_country', 'failed'],
      ['json_schema', 'done'],
      ['latency_below', 'done'],
      ['numeric_tolerance', 'done'],
      ['regex', 'done'],
      ['right_city', 'done'],
    ]);
    expect(evaluations.find((e) => e.name === 'has_country')?.error).toBe('the output has no country');
    const scores = await scoresOf(runId);
    const byName = Object.fromEntries(scores.map((s) => [s.name, s]));
    expect(Object.fromEntries(scores.map((s) => [s.name, s.value]))).toEqual({
      right_city: true,
      json_schema: true,
      contains: true,
      regex: true,
      numeric_tolerance: false,
      latency_below: true,
    });
    expect(byName.right_city).toMatchObject({
      by: { kind: 'system', id: 'evaluator' },
      evaluator: { name: 'exact_match', version: 'judged v1' },
      comment: 'the output is the expected value',
    });
    expect(byName.numeric_tolerance.comment).toBe('41.5 is outside 42 ± 0.25');
    // Scores never go into the run's log.
    expect(await log(runId)).toEqual(ended);
  });

  it('judges at a partial sample rate exactly the runs inEvaluatorSample picks by their ids', async () => {
    const sampled = {
      kind: 'graph',
      nodes: judged.nodes,
      evaluators: [
        { type: 'exact_match', name: 'half_city', path: 'city', expected: 'Paris', sampleRate: 0.5 },
        // Every run: its evaluation being there says the run's evaluations were made.
        { type: 'latency_below', name: 'every_run', maxMs: 60_000 },
      ],
    };
    expect((await stack.api('/v1/workflows/sampled', { method: 'PUT', body: JSON.stringify(sampled) })).status).toBe(201);
    // Run ids are random: a handful of runs, more until each side has two (the pick is a hash of the id, 1 in 2).
    const picked = (runId: string) => inEvaluatorSample(runId, 'half_city', 0.5);
    const runs: string[] = [];
    const sides = () => [runs.filter(picked).length, runs.filter((r) => !picked(r)).length];
    while (runs.length < 6 || (runs.length < 32 && Math.min(...sides()) < 2)) runs.push(await start('sampled'));
    expect(Math.min(...sides())).toBeGreaterThanOrEqual(2);

    for (const runId of runs) {
      await eventually(async () => {
        const list = await evaluationsOf(runId);
        expect(list.some((e) => e.name === 'every_run') && list.every((e) => e.status !== 'pending')).toBe(true);
      }, 30_000);
    }
    const judgedBy = async (runId: string) => ({
      evaluations: (await evaluationsOf(runId)).map((e) => e.name).sort(),
      scores: (await scoresOf(runId)).map((s) => s.name).sort(),
    });
    const names = (runId: string) => (picked(runId) ? ['every_run', 'half_city'] : ['every_run']);
    for (const runId of runs) {
      expect([runId, await judgedBy(runId)]).toEqual([runId, { evaluations: names(runId), scores: names(runId) }]);
    }
  });

  it('finds the judged runs by their scores in the runs list', async () => {
    const runId = await start('judged');
    await eventually(async () => expect((await scoresOf(runId)).length).toBe(6), 30_000);
    const list = async (score: string) =>
      (await json<{ runs: RunSummary[] }>(await stack.api(`/v1/runs?workflow=judged&score=${encodeURIComponent(score)}`))).runs.map(
        (r) => r.runId,
      );
    expect(await list('right_city=true')).toContain(runId);
    expect(await list('numeric_tolerance=true')).not.toContain(runId);
    expect(await list('cost_below')).toEqual([]);
  });

  it('judges with a workflow (an LLM judge with a rubric) on the runners at its own cost, never judging the judge', async () => {
    const judge = {
      kind: 'graph',
      nodes: [
        {
          id: 'rubric',
          type: 'agent',
          model: 'compatible:judge-model',
          instructions: 'You judge whether the answer names the capital of France: score 1 if it does, else 0.',
          prompt: 'Answer: {{input.output.city}}',
          structured: { type: 'object', required: ['score', 'why'], properties: { score: { type: 'number' }, why: { type: 'string' } } },
          output_key: 'verdict',
        },
      ],
      // A judge's own runs are never judged, even with evaluators of their own.
      evaluators: [{ type: 'latency_below', maxMs: 60_000 }],
    };
    expect((await stack.api('/v1/workflows/capital-judge', { method: 'PUT', body: JSON.stringify(judge) })).status).toBe(201);
    const judgedByWorkflow = {
      ...judged,
      evaluators: [
        { type: 'workflow', name: 'capital', workflow: 'capital-judge', scorePath: 'verdict.score', commentPath: 'verdict.why' },
        { type: 'workflow', name: 'missing_judge', workflow: 'no-such-judge' },
      ],
    };
    expect((await stack.api('/v1/workflows/llm-judged', { method: 'PUT', body: JSON.stringify(judgedByWorkflow) })).status).toBe(201);
    const runId = await start('llm-judged');
    await eventually(async () => {
      const list = await evaluationsOf(runId);
      expect(list.length === 2 && list.every((e) => e.status !== 'pending')).toBe(true);
    }, 600);
    const [capital, missing] = await evaluationsOf(runId);
    expect([capital.name, capital.status, capital.type]).toEqual(['capital', 'done', 'workflow']);
    expect(capital.judgeRunId).toMatch(/^[0-9A-Z]{26}$/);
    expect(capital.costUsd).toBeGreaterThan(0);
    expect([missing.status, missing.error]).toEqual(['failed', 'the judge workflow could not start: no workflow named "no-such-judge"']);
    const scores = await scoresOf(runId);
    expect(scores.map((s) => [s.name, s.value, s.comment, s.evaluator?.name])).toEqual([
      ['capital', 1, 'names the capital', 'workflow:capital-judge'],
    ]);
    // The judge's run: started by the evaluator, naming what it evaluates, and not judged itself.
    const judgeLog = await log(capital.judgeRunId!);
    expect(judgeLog[0]).toMatchObject({ data: { evaluates: { runId }, startedBy: { kind: 'system', id: 'evaluator' } } });
    expect(judgeLog.at(-1)?.type).toBe('run.completed');
    expect(await evaluationsOf(capital.judgeRunId!)).toEqual([]);
    // The judged run's own cost is as it was: the judge's is its own run's.
    const judgedRun = await json<RunSummary>(await stack.api(`/v1/runs/${runId}`));
    expect(judgedRun.usage.costUsd ?? 0).toBe(0);

    // The run page lists its evaluators: the judge's run, its cost, and why the other failed (all ended before the page opens).
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(stack.gatewayUrl);
    await signInWithKey(page, stack.adminKey);
    await page.goto(`${stack.gatewayUrl}/#/runs/${runId}`);
    const rows = page.getByTestId('evaluation-row');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    const done = page.locator('[data-testid="evaluation-row"][data-status="done"]');
    expect(await done.getByTestId('judge-run').getAttribute('href')).toBe(`#/runs/${capital.judgeRunId}`);
    expect(await done.textContent()).toContain(`$${capital.costUsd!.toFixed(6)}`);
    expect(await page.locator('[data-testid="evaluation-row"][data-status="failed"]').textContent()).toContain('no-such-judge');
  });

  it('refuses at save an evaluator it could not run, naming the field', async () => {
    const bad = { ...judged, evaluators: [{ type: 'regex', pattern: '(a)\\1' }] };
    const res = await stack.api('/v1/workflows/bad-judge', { method: 'PUT', body: JSON.stringify(bad) });
    const problem = await json<{ code: string; errors: Array<{ field: string }> }>(res);
    expect([res.status, problem.code, problem.errors.map((i) => i.field)]).toEqual([400, 'invalid_definition', ['evaluators[0].pattern']]);
  });
});
