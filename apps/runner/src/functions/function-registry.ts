import { resolve } from 'node:path';
import type { FunctionRegistry, RegisteredFunction } from '@spindle/engine';
import { builtinFunctions } from './builtin-functions';

/** Built-ins plus every plugin module's `functions` export; a name registered twice is an error. */
export function loadFunctionRegistry(pluginPaths: readonly string[]): FunctionRegistry & { names(): string[] } {
  const functions = new Map<string, RegisteredFunction>(Object.entries(builtinFunctions));
  for (const path of pluginPaths) {
    const plugin = require(resolve(path)) as { functions?: Record<string, RegisteredFunction> };
    if (!plugin.functions || typeof plugin.functions !== 'object') throw new Error(`plugin ${path} has no "functions" export`);
    for (const [name, fn] of Object.entries(plugin.functions)) {
      if (functions.has(name)) throw new Error(`function "${name}" from plugin ${path} is already registered`);
      if (typeof fn !== 'function') throw new Error(`plugin ${path}: "${name}" is not a function`);
      functions.set(name, fn);
    }
  }
  return { get: (name) => functions.get(name), names: () => [...functions.keys()] };
}
