import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BUILT_IN_PLUGIN, type FunctionCapability, type PluginCapability, type ToolCapability } from '@spindle/contracts';
import { z } from 'zod';
import type { InputSchema } from './plugin-definition';
import type { LoadedFunction } from './plugin-function-registry';
import type { LoadedTool } from './plugin-tool-port';

/** What a runner announces it can run (without who it is and when: the announcer adds those). */
export interface PluginCapabilities {
  plugins: PluginCapability[];
  functions: FunctionCapability[];
  tools: ToolCapability[];
}

/** One loaded plugin module: the path as configured, the file it resolved to, and its exports. */
export interface LoadedModule {
  path: string;
  file: string;
  /** Its exports (ESM's `default` unwrapped); `name` and `version` are read when it has them. */
  mod: object;
}

/**
 * The capabilities of the loaded plugins: names, descriptions and schemas as JSON Schema, and each
 * plugin's name and version (its module's `name`/`version` exports, else its nearest package.json).
 * A schema that cannot be described (a zod 3 schema of a function, say) is left out, never fatal.
 */
export function capabilitiesOf(
  modules: readonly LoadedModule[],
  functions: ReadonlyMap<string, LoadedFunction>,
  tools: ReadonlyMap<string, LoadedTool>,
): PluginCapabilities {
  return {
    plugins: modules.map(pluginOf),
    functions: [...functions].map(([name, loaded]) => {
      const def = loaded.entry.form === 'definition' ? (loaded.entry.definition as Described) : undefined;
      return {
        name,
        ...described(def),
        ...schemas(def),
        pure: loaded.pure === true,
        plugin: loaded.origin === 'built-in' ? BUILT_IN_PLUGIN : loaded.origin,
      };
    }),
    tools: [...tools].map(([name, loaded]) => ({
      name,
      ...described(loaded.definition as Described),
      inputSchema: loaded.spec.inputSchema,
      ...outputOf(loaded.definition as Described),
      plugin: loaded.origin,
    })),
  };
}

/** A definition's optional parts; `output` is read when a plugin declares one. */
interface Described {
  description?: unknown;
  input?: InputSchema;
  output?: InputSchema;
}

function described(def: Described | undefined): { description?: string } {
  return typeof def?.description === 'string' && def.description !== '' ? { description: def.description } : {};
}

function schemas(def: Described | undefined): { inputSchema?: Record<string, unknown>; outputSchema?: Record<string, unknown> } {
  const input = jsonSchemaOf(def?.input, 'input');
  return { ...(input ? { inputSchema: input } : {}), ...outputOf(def) };
}

function outputOf(def: Described | undefined): { outputSchema?: Record<string, unknown> } {
  const output = jsonSchemaOf(def?.output, 'output');
  return output ? { outputSchema: output } : {};
}

function jsonSchemaOf(schema: InputSchema | undefined, io: 'input' | 'output'): Record<string, unknown> | undefined {
  if (schema === undefined || schema === null || typeof schema !== 'object') return undefined;
  if (typeof (schema as { safeParse?: unknown }).safeParse !== 'function') return schema as Record<string, unknown>;
  // Only zod 4 schemas carry `_zod` and convert.
  if (!('_zod' in schema)) return undefined;
  try {
    const json = z.toJSONSchema(schema as unknown as z.ZodType, { io }) as Record<string, unknown>;
    delete json.$schema;
    return json;
  } catch {
    return undefined;
  }
}

function pluginOf({ path, file, mod: exported }: LoadedModule): PluginCapability {
  const mod = exported as { name?: unknown; version?: unknown };
  const pkg = nearestPackageJson(dirname(file));
  const name = typeof mod.name === 'string' ? mod.name : typeof pkg?.name === 'string' ? pkg.name : path;
  const version = typeof mod.version === 'string' ? mod.version : typeof pkg?.version === 'string' ? pkg.version : undefined;
  return { name, ...(version !== undefined ? { version } : {}), path };
}

function nearestPackageJson(dir: string): { name?: unknown; version?: unknown } | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'package.json');
    if (existsSync(candidate)) {
      try {
        return JSON.parse(readFileSync(candidate, 'utf8')) as { name?: unknown; version?: unknown };
      } catch {
        return undefined;
      }
    }
    if (dirname(at) === at) return undefined;
  }
}
