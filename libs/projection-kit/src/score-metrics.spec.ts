import type { Score } from '@spindle/contracts';
import { Registry } from 'prom-client';
import { ScoreMetrics } from './score-metrics';

const score = (over: Partial<Score>): Score => ({
  scoreId: 'sc_1',
  runId: '01JRUN',
  spanId: null,
  name: 'helpfulness',
  value: 0.8,
  dataType: 'numeric',
  comment: null,
  by: { kind: 'user', id: 'ana', name: 'Ana' },
  evaluator: null,
  createdAt: '2026-12-04T10:00:00.000Z',
  ...over,
});

describe('ScoreMetrics', () => {
  it('counts scores by name, kind and giver, and spreads numbers and booleans, never naming a run', async () => {
    const registry = new Registry();
    const metrics = new ScoreMetrics(registry);
    metrics.observe(score({}));
    metrics.observe(score({ name: 'correct', value: true, dataType: 'boolean', evaluator: { name: 'exact_match', version: '1' } }));
    metrics.observe(score({ name: 'tone', value: 'friendly', dataType: 'categorical', by: { kind: 'key', id: 'k', name: 'ci' } }));
    const text = await registry.metrics();
    expect(text).toContain('spindle_scores_total{name="helpfulness",data_type="numeric",given_by="user"} 1');
    expect(text).toContain('spindle_scores_total{name="correct",data_type="boolean",given_by="evaluator"} 1');
    expect(text).toContain('spindle_scores_total{name="tone",data_type="categorical",given_by="key"} 1');
    expect(text).toContain('spindle_score_value_sum{name="helpfulness"} 0.8');
    expect(text).toContain('spindle_score_value_count{name="correct"} 1');
    expect(text).not.toContain('spindle_score_value_count{name="tone"}');
    expect(text).not.toContain('01JRUN');
  });
});
