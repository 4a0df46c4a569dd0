/**
 * A value a JSON Schema accepts, for prefilling a form: the schema's own `default`, `const`, first `enum` value or
 * first `examples` entry when it has one, else the smallest value of its type (an object with its required
 * properties, `minItems` items, a number at its `minimum`). Best effort: the gateway still checks what is sent.
 */
export function sampleOf(schema: unknown, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 8) return null;
  const s = schema as Record<string, unknown>;
  if ('default' in s) return s.default;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  const choice = [s.anyOf, s.oneOf].find((list): list is unknown[] => Array.isArray(list) && list.length > 0);
  if (choice) return sampleOf(choice[0], depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type ?? (s.properties ? 'object' : undefined)) {
    case 'object':
      return objectSample(s, depth);
    case 'array':
      return Array.from({ length: typeof s.minItems === 'number' ? s.minItems : 0 }, () => sampleOf(s.items, depth + 1));
    case 'string':
      return 'x'.repeat(typeof s.minLength === 'number' ? s.minLength : 0);
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** Required properties, and optional ones that name a default (so the form shows what the workflow assumes). */
function objectSample(s: Record<string, unknown>, depth: number): Record<string, unknown> {
  const properties = (typeof s.properties === 'object' && s.properties !== null ? s.properties : {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, property] of Object.entries(properties)) {
    const hasDefault = typeof property === 'object' && property !== null && 'default' in property;
    if (required.has(key) || hasDefault) out[key] = sampleOf(property, depth + 1);
  }
  return { ...out };
}
