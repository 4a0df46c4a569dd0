/** Text written as it is, between the values of the work stack below. */
class Literal {
  constructor(readonly text: string) {}
}

/**
 * JSON with object keys sorted, so equal values give equal text (jsonb and clients reorder keys).
 * Stored hashes (workflow versions, idempotency keys) depend on this exact text, so it must not
 * change. It walks the value with an explicit stack instead of recursion: request bodies are
 * depth-limited before parsing, but a hash must never be the thing that overflows the stack.
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
        work.push(item[i]);
        if (i > 0) work.push(new Literal(','));
      }
      work.push(new Literal('['));
    } else if (item && typeof item === 'object') {
      const keys = Object.keys(item).sort();
      work.push(new Literal('}'));
      for (let i = keys.length - 1; i >= 0; i--) {
        work.push((item as Record<string, unknown>)[keys[i]]);
        work.push(new Literal(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`));
      }
      work.push(new Literal('{'));
    } else {
      out += JSON.stringify(item) ?? 'null';
    }
  }
  return out;
}
