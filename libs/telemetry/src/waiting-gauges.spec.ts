import { Registry } from 'prom-client';
import { registerWaitingGauges } from './waiting-gauges';

describe('registerWaitingGauges', () => {
  it('shows how many wait and the age of the oldest per label value, 0 for a value with none, from one read per scrape', async () => {
    const registry = new Registry();
    let reads = 0;
    registerWaitingGauges(registry, {
      count: { name: 'q_depth', help: 'depth' },
      oldestAge: { name: 'q_oldest_age_seconds', help: 'age' },
      label: 'state',
      values: ['waiting', 'admitted'],
      read: async () => {
        reads++;
        return new Map([['waiting', { count: 3, oldest: new Date(40_000) }]]);
      },
      now: () => 100_000,
    });
    const text = await registry.metrics();
    expect(text).toContain('q_depth{state="waiting"} 3');
    expect(text).toContain('q_depth{state="admitted"} 0');
    expect(text).toContain('q_oldest_age_seconds{state="waiting"} 60');
    expect(text).toContain('q_oldest_age_seconds{state="admitted"} 0');
    expect(reads).toBe(1);
  });
});
