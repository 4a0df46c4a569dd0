import {
  BUILT_IN_PLUGIN,
  canonicalJson,
  type FunctionCapability,
  type ListedFunction,
  type ListedTool,
  type PluginCapability,
  type RunnerCapabilities,
  type ToolCapability,
} from '@spindle/contracts';

/**
 * What `GET /v1/functions` and `GET /v1/tools` answer: the runners' announcements merged by name.
 * Runners that announce the same name with the same description, schemas and plugin share one
 * entry; a name that differs between runners (two versions of a plugin, say) is listed once per
 * variant, each with the runners that have it. Sorted by name, then by how many runners have it.
 */
export function listFunctions(runners: readonly RunnerCapabilities[]): ListedFunction[] {
  return merge(
    runners,
    (r) => r.functions,
    (f: FunctionCapability, plugin) => ({ ...fieldsOf(f, plugin), pure: f.pure }),
  );
}

export function listTools(runners: readonly RunnerCapabilities[]): ListedTool[] {
  return merge(
    runners,
    (r) => r.tools,
    (t: ToolCapability, plugin) => fieldsOf(t, plugin),
  );
}

type Announced = FunctionCapability | ToolCapability;

function fieldsOf(entry: Announced, plugin: PluginCapability) {
  return {
    name: entry.name,
    ...(entry.description !== undefined ? { description: entry.description } : {}),
    ...(entry.inputSchema !== undefined ? { inputSchema: entry.inputSchema } : {}),
    ...(entry.outputSchema !== undefined ? { outputSchema: entry.outputSchema } : {}),
    plugin,
  };
}

function merge<E extends Announced, L extends { name: string; runners: ListedFunction['runners'] }>(
  runners: readonly RunnerCapabilities[],
  entriesOf: (runner: RunnerCapabilities) => readonly E[],
  describe: (entry: E, plugin: PluginCapability) => Omit<L, 'runners'>,
): L[] {
  const variants = new Map<string, L>();
  for (const runner of [...runners].sort((a, b) => a.runnerId.localeCompare(b.runnerId))) {
    for (const entry of entriesOf(runner)) {
      const listed = describe(entry, pluginOf(runner, entry.plugin));
      const key = canonicalJson(listed);
      const variant = variants.get(key) ?? ({ ...listed, runners: [] } as unknown as L);
      variant.runners.push({ id: runner.runnerId, announcedAt: runner.announcedAt });
      variants.set(key, variant);
    }
  }
  return [...variants.values()].sort((a, b) => a.name.localeCompare(b.name) || b.runners.length - a.runners.length);
}

function pluginOf(runner: RunnerCapabilities, path: string): PluginCapability {
  if (path === BUILT_IN_PLUGIN) return { name: BUILT_IN_PLUGIN, path };
  return runner.plugins.find((p) => p.path === path) ?? { name: path, path };
}
