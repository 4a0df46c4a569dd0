/** What a label shows once its distinct values reach the bound. */
export const OVERFLOW_LABEL = '_other';

/**
 * Keeps a metric label's cardinality bounded when its values come from users (workflow, model and
 * tool names): the first `max` distinct values are kept as they are, later ones share
 * `_other`, and a value longer than `maxLength` is cut. Prometheus' memory grows with every
 * series, so a tenant naming a thousand workflows must not make a thousand of them.
 */
export function boundedLabel(max: number, maxLength = 120): (value: string | undefined) => string {
  const seen = new Set<string>();
  return (value) => {
    const v = (value ?? '').slice(0, maxLength) || 'none';
    if (seen.has(v)) return v;
    if (seen.size >= max) return OVERFLOW_LABEL;
    seen.add(v);
    return v;
  };
}
