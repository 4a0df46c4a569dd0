import { chargeSteps, STEPS_PER_ELEMENT, STEPS_PER_ENTRY } from './expression-meter';

/**
 * CEL distinguishes int from double; JSON numbers that are whole become BigInt ints for CEL.
 * Only the state keys the expression names are converted, and the copy is charged per list
 * element and map entry (strings are shared, not copied).
 */
export function toCelContext(state: Readonly<Record<string, unknown>>, names: ReadonlySet<string>): Record<string, unknown> {
  const context: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(state, name)) context[name] = convert(state[name]);
  return context;
}

const copying = () => 'copying state for the expression';

function convert(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    chargeSteps(value.length * STEPS_PER_ELEMENT, copying);
    const copy = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = convert(value[i]);
    return copy;
  }
  const copy: Record<string, unknown> = {};
  // for…in, not Object.entries: no array of pairs is built before the first charge can refuse.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    chargeSteps(STEPS_PER_ENTRY, copying);
    const item = convert((value as Record<string, unknown>)[key]);
    // A JSON key "__proto__" is data; plain assignment would set the copy's prototype instead.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}
