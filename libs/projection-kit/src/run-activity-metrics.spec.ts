import type { RunEvent } from '@spindle/contracts';
import { Registry } from 'prom-client';
import { RunActivityMetrics } from './run-activity-metrics';

const at = '2026-11-30T10:00:00.000Z';
const root = { spanId: 'root', path: 'root', at };

function ended(runId: string, seq: number): RunEvent {
  return {
    runId,
    seq,
    ...root,
    type: 'run.completed',
    data: { output: {}, durationMs: 2_000, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
  };
}

describe('RunActivityMetrics', () => {
  it("asks where a run's workflow is when its start was counted before this process, and counts an unpriced call as such", async () => {
    const registry = new Registry();
    const asked: string[][] = [];
    const metrics = new RunActivityMetrics(registry, async (runIds) => {
      asked.push([...runIds]);
      return new Map([['run-old', 'billing']]);
    });
    await metrics.observe([
      {
        runId: 'run-old',
        seq: 7,
        ...root,
        spanId: 'model-1',
        type: 'model.completed',
        data: {
          model: 'openai:gpt-x',
          text: '',
          durationMs: 5,
          usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4, unpricedCalls: 1 },
        },
      },
      ended('run-old', 8),
    ]);
    const text = await registry.metrics();
    expect(asked).toEqual([['run-old']]);
    expect(text).toContain('spindle_runs_ended_total{workflow="billing",status="completed",error_code="none"} 1');
    expect(text).toContain('spindle_model_calls_unpriced_total{model="openai:gpt-x"} 1');
    expect(text).not.toContain('spindle_model_cost_usd_total{');
  });

  it('labels a run whose workflow cannot be found `none` and folds names past the bound into `_other`', async () => {
    const registry = new Registry();
    const metrics = new RunActivityMetrics(registry, async () => new Map());
    const queued = (runId: string, workflow: string): RunEvent => ({
      runId,
      seq: 1,
      ...root,
      type: 'run.queued',
      data: { workflow: { name: workflow, version: 1 }, input: null, state: {}, definition: {} },
    });
    await metrics.observe([ended('run-lost', 9)]);
    await metrics.observe(Array.from({ length: 205 }, (_, i) => queued(`run-${i}`, `wf-${i}`)));
    const text = await registry.metrics();
    expect(text).toContain('spindle_runs_queued_total{workflow="wf-198"} 1');
    expect(text).toContain('spindle_runs_queued_total{workflow="_other"} 6');
    expect(text).not.toContain('wf-199');
    expect(text).toContain('spindle_runs_ended_total{workflow="none",status="completed",error_code="none"} 1');
  });

  it('counts the cost user code reported and its failed tries, by function or tool', async () => {
    const registry = new Registry();
    const metrics = new RunActivityMetrics(registry, async () => new Map());
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0.25 };
    await metrics.observe([
      {
        runId: 'r',
        seq: 3,
        ...root,
        type: 'usage.reported',
        data: { usage, source: { kind: 'function', name: 'lookup_order' }, runUsage: usage },
      },
      {
        runId: 'r',
        seq: 4,
        ...root,
        type: 'attempt.failed',
        data: { kind: 'tool', name: 'fetch_page', attempt: 1, error: { code: 'tool_failed', message: 'x' }, retryInMs: 100 },
      },
    ]);
    const text = await registry.metrics();
    expect(text).toContain('spindle_reported_cost_usd_total{kind="function",name="lookup_order"} 0.25');
    expect(text).toContain('spindle_user_code_attempts_failed_total{kind="tool",name="fetch_page",error_code="tool_failed"} 1');
  });
});
