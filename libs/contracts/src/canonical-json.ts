/** Text written as it is, between the values of the work stack below. */
class Literal {
  constructor(readonly text: string) {}
}

/** What JSON leaves out of an object (and writes as `null` in an array). */
const absent = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

/**
 * JSON with object keys sorted at every level: equal values give equal text, hence equal hashes
 * (workflow versions, idempotency keys, node cache keys, tool-call bindings). Otherwise exactly
 * `JSON.stringify`: a key whose value is undefined is left out, an undefined array element is
 * `null`, and so is an undefined value. It walks the value with an explicit stack, so a hash is
 * never the thing that overflows the call stack, however deep the value.
 */
export function canonicalJson(value: unknown): string {
  let out = '';
  const work: unknown[] = [value];
  while (work.length > 0) {
    const item = work.pop();
    if (item instanceof Literal) {
      out += item.text;
    } else if (Array.isArray(item)) {
      // Pushed in reverse, so they come off the stack in order.
      work.push(new Literal(']'));
      for (let i = item.length - 1; i >= 0; i--) {
        work.push(absent(item[i]) ? null : item[i]);
        if (i > 0) work.push(new Literal(','));
      }
      work.push(new Literal('['));
    } else if (item && typeof item === 'object') {
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => !absent(record[k]))
        .sort();
      work.push(new Literal('}'));
      for (let i = keys.length - 1; i >= 0; i--) {
        work.push(record[keys[i]]);
        work.push(new Literal(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`));
      }
      work.push(new Literal('{'));
    } else {
      out += JSON.stringify(item) ?? 'null';
    }
  }
  return out;
}

/** A JSON object (not an array, not null): what a field read from untrusted JSON must be before its keys are read. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
