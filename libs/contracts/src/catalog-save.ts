import { canonicalJson } from './canonical-json';

/** The entry a catalog (workflows, agents) holds under a name now. */
export interface CatalogEntry {
  /** The latest version's number. */
  version: number;
  /** The latest version's content (a workflow definition, an agent spec) as stored. */
  content: unknown;
  deleted: boolean;
}

export type CatalogSave = { created: false; version: number } | { created: true; version: number };

/**
 * What saving `content` under a name does: nothing when the entry is live and holds the same
 * JSON value (keys in any order: jsonb does not keep them), so a repeated PUT is idempotent;
 * else a new version after the latest, a deleted entry's numbers included, so a version never
 * names two contents.
 */
export function planCatalogSave(current: CatalogEntry | undefined, content: unknown): CatalogSave {
  if (current && !current.deleted && canonicalJson(current.content) === canonicalJson(content))
    return { created: false, version: current.version };
  return { created: true, version: (current?.version ?? 0) + 1 };
}
