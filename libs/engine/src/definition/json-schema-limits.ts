/**
 * Bounds on a JSON Schema before ajv compiles it. ajv generates and compiles code for a schema
 * at about 15–50 µs per schema value (measured warm), so compile time follows schema size;
 * compiled schemas are then cached by content (json-schema.ts), so a schema is compiled once
 * per process. Validation itself stays linear in the data: patterns run on the linear-time
 * engine, and `uniqueItems` is checked by canonical text instead of comparing every pair.
 */

/** Most values (objects, arrays, scalars) in one schema: ~8–25 ms to compile at the most. */
export const MAX_JSON_SCHEMA_NODES = 500;
/** Deepest nesting: ajv's code generation recurses with the schema. */
export const MAX_JSON_SCHEMA_DEPTH = 32;
/** Most schema values in one definition (parameters, agent answers, human forms): bounds its first compile. */
export const MAX_DEFINITION_SCHEMA_NODES = 2_000;
/** Most characters of `pattern`s and `patternProperties` keys in one schema: RE2 compiles at up to ~10 µs a character. */
export const MAX_JSON_SCHEMA_PATTERN_CHARACTERS = 2_048;

/** Why a schema is over a bound, or undefined. Iterative, and stops at the first bound crossed. */
export function jsonSchemaLimitProblem(schema: unknown): string | undefined {
  let nodes = 0;
  let patternCharacters = 0;
  const pending: { value: unknown; depth: number }[] = [{ value: schema, depth: 0 }];
  while (pending.length > 0) {
    const { value, depth } = pending.pop() as { value: unknown; depth: number };
    if (++nodes > MAX_JSON_SCHEMA_NODES) return `has more than ${MAX_JSON_SCHEMA_NODES} values (MAX_JSON_SCHEMA_NODES)`;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_SCHEMA_DEPTH) return `nests deeper than ${MAX_JSON_SCHEMA_DEPTH} levels (MAX_JSON_SCHEMA_DEPTH)`;
    for (const [key, child] of Object.entries(value)) {
      if (key === 'pattern' && typeof child === 'string') patternCharacters += child.length;
      if (key === 'patternProperties' && child !== null && typeof child === 'object')
        patternCharacters += Object.keys(child).join('').length;
      if (patternCharacters > MAX_JSON_SCHEMA_PATTERN_CHARACTERS) {
        return `has more than ${MAX_JSON_SCHEMA_PATTERN_CHARACTERS} characters of patterns (MAX_JSON_SCHEMA_PATTERN_CHARACTERS)`;
      }
      pending.push({ value: child, depth: depth + 1 });
    }
  }
  return undefined;
}

/** How many values `schema` has, counted up to `cap` + 1 (iteratively, without compiling). */
export function jsonSchemaNodes(schema: unknown, cap: number): number {
  let nodes = 0;
  const pending: unknown[] = [schema];
  while (pending.length > 0 && nodes <= cap) {
    const value = pending.pop();
    nodes++;
    if (value !== null && typeof value === 'object') for (const child of Object.values(value)) pending.push(child);
  }
  return nodes;
}
