import { Counter } from 'prom-client';
import { createMetrics, renderMetrics } from './metrics.registry';

describe('createMetrics', () => {
  it('exposes prefixed process metrics labelled with the service', async () => {
    const { contentType, body } = await renderMetrics(createMetrics('runner'));
    expect(contentType).toMatch(/^text\/plain/);
    expect(body).toMatch(/^spindle_process_cpu_user_seconds_total\{service="runner"\} \d/m);
  });

  it('gives each call its own registry for service-specific metrics', async () => {
    const registry = createMetrics('gateway');
    createMetrics('gateway'); // a second registry must not collide
    const started = new Counter({ name: 'spindle_runs_started_total', help: 'Runs started', registers: [registry] });
    started.inc(3);
    expect((await renderMetrics(registry)).body).toContain('spindle_runs_started_total{service="gateway"} 3');
  });
});
