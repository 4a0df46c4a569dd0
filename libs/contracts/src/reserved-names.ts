/**
 * Names a user may not give to anything that becomes a key (a workflow, an agent, a node, a
 * branch, a state key): JavaScript's prototype keys. As object keys they read what every object
 * inherits (`{}["constructor"]` is a function) or are dropped by JSON tooling (`__proto__`), so
 * they would resolve to something nobody defined, or vanish.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  // Object.prototype's own properties, and `prototype`.
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toString',
  'toLocaleString',
  'valueOf',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

export function isReservedName(name: string): boolean {
  return RESERVED_NAMES.has(name);
}

export const reservedNameMessage = (name: string) => `"${name}" is reserved (a JavaScript prototype key); choose another name`;
