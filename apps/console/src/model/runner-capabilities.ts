import type { ListedFunction, ListedTool } from '@spindle/client';
import { namedCapabilities } from '@spindle/engine/browser';

/** One function or tool the live runners have, as the workflow screen lists it. */
export interface CapabilityRow {
  kind: 'function' | 'tool';
  name: string;
  /** `name@version` of its plugin (`built-in` for the runner's own functions). */
  plugin: string;
  runners: string[];
  description: string;
  /** The fields of the shown definition that name it (`nodes[2].function`). */
  usedAt: string[];
}

/** A function or tool the shown definition names that no live runner has: a save of it again would be refused. */
export interface MissingCapability {
  kind: 'function' | 'tool';
  name: string;
  field: string;
}

export interface CapabilityView {
  rows: CapabilityRow[];
  missing: MissingCapability[];
}

/**
 * The functions and tools the runners announce, the ones this definition uses first, and what it
 * names that no runner has. With no runner announced nothing is called missing (nothing to say it against).
 */
export function capabilityView(definition: unknown, functions: readonly ListedFunction[], tools: readonly ListedTool[]): CapabilityView {
  const named = namesOf(definition);
  const row = (kind: CapabilityRow['kind'], entry: ListedFunction | ListedTool): CapabilityRow => ({
    kind,
    name: entry.name,
    plugin: entry.plugin.version ? `${entry.plugin.name}@${entry.plugin.version}` : entry.plugin.name,
    runners: entry.runners.map((r) => r.id),
    description: entry.description ?? '',
    usedAt: named.filter((n) => n.kind === kind && n.name === entry.name).map((n) => n.field),
  });
  const rows = [...functions.map((f) => row('function', f)), ...tools.map((t) => row('tool', t))].sort(
    (a, b) => Number(b.usedAt.length > 0) - Number(a.usedAt.length > 0) || a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name),
  );
  const anyRunner = [...functions, ...tools].some((e) => e.runners.length > 0);
  const known = (kind: CapabilityRow['kind'], name: string) => (kind === 'function' ? functions : tools).some((e) => e.name === name);
  const missing = anyRunner ? named.filter((n) => !known(n.kind, n.name)).map(({ kind, name, field }) => ({ kind, name, field })) : [];
  return { rows, missing };
}

/** What a stored definition names; one the walk cannot read (not a definition at all) names nothing. */
function namesOf(definition: unknown): ReturnType<typeof namedCapabilities> {
  try {
    return namedCapabilities(definition as Parameters<typeof namedCapabilities>[0]);
  } catch {
    return [];
  }
}
