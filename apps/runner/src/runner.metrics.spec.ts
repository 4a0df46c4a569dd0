import { Registry } from 'prom-client';
import { StepSlots } from './execution/step-slots';
import { RunnerMetrics } from './runner.metrics';

const valueOf = async (registry: Registry, name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;

describe('RunnerMetrics', () => {
  it('reads held runs and step slots when scraped', async () => {
    const registry = new Registry();
    const slots = new StepSlots(2);
    const metrics = new RunnerMetrics(registry, 1_000, slots);
    let held = 0;
    metrics.countHeld(() => held);
    await slots.acquire();
    await slots.acquire();
    void slots.acquire();
    held = 3;
    expect(await valueOf(registry, 'spindle_runner_runs_held')).toBe(3);
    expect(await valueOf(registry, 'spindle_runner_run_capacity')).toBe(1_000);
    expect(await valueOf(registry, 'spindle_runner_step_slots')).toBe(2);
    expect(await valueOf(registry, 'spindle_runner_step_slots_in_use')).toBe(2);
    expect(await valueOf(registry, 'spindle_runner_step_slots_waiting')).toBe(1);
    metrics.logMessages.inc();
    metrics.logEvents.inc(7);
    expect(await registry.metrics()).toMatch(/spindle_run_log_events_total 7\n/);
  });
});
