import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { createEgressGuard, noInternalEgress } from '@spindle/egress';
import type { RegisteredFunction } from '@spindle/engine';
import { builtinFunctions } from '../functions/builtin-functions';
import { capabilitiesOf, type LoadedModule, type PluginCapabilities } from './capabilities-of';
import { compileInput, compileOutput } from './input-schema';
import { parseDefinition, type PluginToolDefinition } from './plugin-definition';
import { PluginFunctionRegistry, type LoadedFunction } from './plugin-function-registry';
import { parseRetriever, PluginRetrievers, type PluginRetrieverDefinition } from './plugin-retrievers';
import { PluginToolPort, type LoadedTool } from './plugin-tool-port';

export interface LoadedPlugins {
  functions: PluginFunctionRegistry;
  tools: PluginToolPort;
  retrievers: PluginRetrievers;
  /** What the runner announces it can run (see capabilities-of.ts). */
  capabilities: PluginCapabilities;
}

export interface LoadPluginsOptions {
  /** Relative plugin paths resolve against this; the process's cwd by default. */
  cwd?: string;
  /** The functions every runner has; `builtinFunctions` by default. */
  builtins?: Readonly<Record<string, RegisteredFunction>>;
  /** The `fetch` plugins get in their context: the runner's egress guard's; one that reaches nothing internal by default. */
  fetch?: typeof fetch;
}

// Model providers accept only these tool names (OpenAI: ^[a-zA-Z0-9_-]{1,64}$).
const toolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Loads every plugin module once, at startup, and fails with a message naming the plugin and the
 * entry when anything is wrong: a runner that starts has every function and tool it was told to.
 */
export function loadPlugins(paths: readonly string[], options: LoadPluginsOptions = {}): LoadedPlugins {
  const cwd = options.cwd ?? process.cwd();
  const functions = new Map<string, LoadedFunction>();
  const tools = new Map<string, LoadedTool>();
  const retrievers = new Map<string, { origin: string; definition: PluginRetrieverDefinition }>();
  for (const [name, fn] of Object.entries(options.builtins ?? builtinFunctions)) {
    functions.set(name, {
      origin: 'built-in',
      entry: { form: 'plain', run: fn as never },
      input: compileInput(undefined, name, { describe: false }),
      // The built-ins compute from their arguments and state only (or wait): none acts on the world.
      pure: true,
    });
  }

  const loaded = new Map<string, string>();
  const modules: LoadedModule[] = [];
  for (const path of paths) {
    const plugin = `plugin "${path}"`;
    const { file, mod } = requirePlugin(path, cwd);
    if (loaded.has(file)) throw new Error(`${plugin} is listed twice (also as "${loaded.get(file)}"): it resolves to ${file}`);
    loaded.set(file, path);
    modules.push({ path, file, mod });
    if (mod.functions === undefined && mod.tools === undefined && mod.retrievers === undefined)
      throw new Error(`${plugin} exports neither "functions" nor "tools" nor "retrievers"`);

    for (const [name, value] of entriesOf(mod.functions, `${plugin}: "functions"`)) {
      const where = `${plugin}: function "${name}"`;
      refuseDuplicate(functions.get(name)?.origin, where);
      const entry = parseDefinition('function', value, where);
      const input = compileInput(entry.form === 'definition' ? entry.definition.input : undefined, where, { describe: false });
      functions.set(name, {
        origin: path,
        entry,
        input,
        output: compileOutput(entry.form === 'definition' ? entry.definition.output : undefined, where, 'function_failed'),
        pure: entry.form === 'definition' && 'pure' in entry.definition && entry.definition.pure === true,
      });
    }

    for (const [name, value] of entriesOf(mod.tools, `${plugin}: "tools"`)) {
      const where = `${plugin}: tool "${name}"`;
      if (!toolNamePattern.test(name)) throw new Error(`${where}: a tool name may only have letters, digits, "_" and "-" (at most 64)`);
      refuseDuplicate(tools.get(name)?.origin, where);
      const definition = (parseDefinition('tool', value, where) as { definition: PluginToolDefinition }).definition;
      const input = compileInput(definition.input, where, { describe: true });
      tools.set(name, {
        origin: path,
        definition,
        input,
        output: compileOutput(definition.output, where, 'tool_failed'),
        spec: { name, description: definition.description ?? '', inputSchema: input.jsonSchema },
      });
    }

    for (const [name, value] of entriesOf(mod.retrievers, `${plugin}: "retrievers"`)) {
      const where = `${plugin}: retriever "${name}"`;
      refuseDuplicate(retrievers.get(name)?.origin, where);
      retrievers.set(name, { origin: path, definition: parseRetriever(name, value, where) });
    }
  }
  const fetch = options.fetch ?? createEgressGuard(noInternalEgress).fetch;
  return {
    functions: new PluginFunctionRegistry(functions, fetch),
    tools: new PluginToolPort(tools, fetch),
    retrievers: new PluginRetrievers(new Map([...retrievers].map(([name, r]) => [name, r.definition])), fetch),
    capabilities: capabilitiesOf(modules, functions, tools),
  };
}

function refuseDuplicate(existing: string | undefined, where: string): void {
  if (existing === undefined) return;
  throw new Error(`${where} is already registered (${existing === 'built-in' ? 'a built-in' : `by plugin "${existing}"`})`);
}

function entriesOf(record: unknown, where: string): [string, unknown][] {
  if (record === undefined) return [];
  if (record === null || typeof record !== 'object' || Array.isArray(record))
    throw new Error(`${where} must be an object of name → definition`);
  return Object.entries(record);
}

/**
 * A path (relative to `cwd`, or absolute) or a package name resolvable from `cwd`, so
 * `SPINDLE_PLUGINS=examples/plugins/calculator.js` works from the repo root like `./…` does.
 */
function requirePlugin(path: string, cwd: string): { file: string; mod: { functions?: unknown; tools?: unknown; retrievers?: unknown } } {
  const local = resolve(cwd, path);
  let file: string;
  if (isAbsolute(path) || path.startsWith('.') || existsSync(local)) {
    file = local;
  } else {
    try {
      file = require.resolve(path, { paths: [cwd] });
    } catch {
      throw new Error(`plugin "${path}": no file ${local} and no package "${path}" resolvable from ${cwd}`);
    }
  }
  let mod: unknown;
  try {
    mod = require(file);
  } catch (e) {
    throw new Error(`plugin "${path}" (${file}) failed to load: ${(e as Error).message}`, { cause: e });
  }
  if (mod === null || (typeof mod !== 'object' && typeof mod !== 'function'))
    throw new Error(`plugin "${path}" exports neither "functions" nor "tools"`);
  type Exports = { functions?: unknown; tools?: unknown; retrievers?: unknown };
  const exported = mod as Exports & { default?: Exports };
  // ESM and TypeScript-compiled plugins put their exports under `default`.
  const unwrap =
    exported.functions === undefined &&
    exported.tools === undefined &&
    exported.retrievers === undefined &&
    exported.default &&
    typeof exported.default === 'object';
  return { file, mod: unwrap ? (exported.default as Exports) : exported };
}
