import type { Score } from '@spindle/contracts';
import { boundedLabel } from '@spindle/telemetry';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Distinct score names a label keeps before folding the rest into `_other`. */
const MAX_SCORE_NAMES = 200;
const VALUE_BUCKETS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 5, 10, 100];

/**
 * Scores as Prometheus series: how many of each name and kind were given, by whom (a person, a
 * key, an evaluator), and the numeric values' spread. Counted once, when a score is first stored.
 * No run id is ever a label; score names are bounded.
 */
export class ScoreMetrics {
  private readonly name = boundedLabel(MAX_SCORE_NAMES);
  private readonly given: Counter<'name' | 'data_type' | 'given_by'>;
  private readonly values: Histogram<'name'>;

  constructor(registry: Registry) {
    this.given = new Counter({
      name: 'spindle_scores_total',
      help: 'Scores stored, by name, data type and who gave them (user, key, evaluator).',
      labelNames: ['name', 'data_type', 'given_by'],
      registers: [registry],
    });
    this.values = new Histogram({
      name: 'spindle_score_value',
      help: 'Values of numeric and boolean scores (a boolean as 1 or 0), by name.',
      labelNames: ['name'],
      buckets: VALUE_BUCKETS,
      registers: [registry],
    });
  }

  observe(score: Score): void {
    const name = this.name(score.name);
    this.given.inc({ name, data_type: score.dataType, given_by: score.evaluator ? 'evaluator' : score.by.kind });
    if (typeof score.value === 'number') this.values.observe({ name }, score.value);
    else if (typeof score.value === 'boolean') this.values.observe({ name }, score.value ? 1 : 0);
  }
}
