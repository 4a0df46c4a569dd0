/**
 * A value as one short line of JSON for a table cell: top-level keys with their scalar values,
 * nested objects and arrays as `{...}` / `[...]`, cut to `width` with `…` (as the README's trace table shows).
 */
export function briefJson(value: unknown, width: number): string {
  const text = briefValue(value, 0);
  const chars = [...text];
  return chars.length <= width ? text : chars.slice(0, Math.max(0, width - 1)).join('') + '…';
}

function briefValue(value: unknown, depth: number): string {
  if (value === undefined || value === null) return depth === 0 ? '-' : 'null';
  if (Array.isArray(value)) return depth > 0 ? '[...]' : `[${value.map((v) => briefValue(v, depth + 1)).join(', ')}]`;
  if (typeof value === 'object') {
    if (depth > 0) return Object.keys(value).length === 0 ? '{}' : '{...}';
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${JSON.stringify(k)}: ${briefValue(v, depth + 1)}`);
    return `{${entries.join(', ')}}`;
  }
  return JSON.stringify(value) ?? String(value);
}
