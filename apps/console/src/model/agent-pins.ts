import type { SpanView } from './run-view';

/**
 * The catalog agent and version a node span ran ("writer v3"): a pattern's `{ "ref" }` entry is
 * resolved when the run starts, and the agent node's input records which version it was.
 */
export function catalogAgentOf(span: SpanView): string | undefined {
  if (span.kind !== 'node') return undefined;
  const agent = (span.input as { agent?: { name?: unknown; version?: unknown } } | undefined)?.agent;
  return typeof agent?.name === 'string' && typeof agent.version === 'number' ? `${agent.name} v${agent.version}` : undefined;
}

/**
 * What a pattern entry's `version` pins, as the editor's graph shows it next to the agent's name:
 * `v3`, `v from writer_version` (a run parameter chooses), or nothing (the latest at run start).
 */
export function pinLabel(version: unknown): string | undefined {
  if (typeof version === 'number') return `v${version}`;
  const parameter = (version as { parameter?: unknown } | null | undefined)?.parameter;
  return typeof parameter === 'string' ? `v from ${parameter}` : undefined;
}
