import type { GatewayTables } from '@spindle/db';
import { sql, type Kysely } from 'kysely';
import type { BaseVersion } from './knowledge-base.repository';

interface VersionVectors {
  generation: string;
  ids: string[];
  /** `ids.length × dimensions` floats, row-major. */
  vectors: Float32Array;
  bytes: number;
}

/**
 * The exact search's working set: each base version's vectors in memory, read once and again only
 * when the version's ready documents change (their count, chunk total and latest ingestion are
 * the generation). Least recently used versions are dropped beyond `maxBytes`. Scanning 100,000
 * vectors of 256 dimensions is ~25 M multiply-adds: tens of milliseconds, where the same
 * arithmetic in SQL over arrays takes seconds.
 */
export class VectorCache {
  private readonly versions = new Map<string, VersionVectors>();
  private bytes = 0;

  constructor(private readonly maxBytes = 512 * 1024 * 1024) {}

  async load(db: Kysely<GatewayTables>, base: BaseVersion): Promise<VersionVectors> {
    const key = `${base.baseId}:${base.version}`;
    const generation = await generationOf(db, base);
    const held = this.versions.get(key);
    if (held && held.generation === generation) {
      // Most recently used last.
      this.versions.delete(key);
      this.versions.set(key, held);
      return held;
    }
    const rows = await db
      .selectFrom('knowledge_chunks')
      .select(['id', 'embedding'])
      .where('base_id', '=', base.baseId)
      .where('version', '=', base.version)
      .orderBy('id')
      .execute();
    const d = base.dimensions;
    const vectors = new Float32Array(rows.length * d);
    rows.forEach((r, i) => {
      const b = r.embedding;
      vectors.set(new Float32Array(b.buffer, b.byteOffset, Math.min(d, b.byteLength / 4)), i * d);
    });
    const loaded = { generation, ids: rows.map((r) => r.id), vectors, bytes: vectors.byteLength + rows.length * 64 };
    if (held) this.drop(key);
    this.versions.set(key, loaded);
    this.bytes += loaded.bytes;
    for (const k of this.versions.keys()) {
      if (this.bytes <= this.maxBytes || k === key) break;
      this.drop(k);
    }
    return loaded;
  }

  private drop(key: string) {
    const v = this.versions.get(key);
    if (!v) return;
    this.bytes -= v.bytes;
    this.versions.delete(key);
  }
}

async function generationOf(db: Kysely<GatewayTables>, base: BaseVersion): Promise<string> {
  const r = await sql<{ docs: number; chunks: number; last: Date | null }>`
    select count(*)::int as docs, coalesce(sum(chunks), 0)::int as chunks, max(ingested_at) as last
    from knowledge_documents where base_id = ${base.baseId} and version = ${base.version} and status = 'ready'`.execute(db);
  const g = r.rows[0];
  return `${g?.docs ?? 0}:${g?.chunks ?? 0}:${g?.last ? new Date(g.last).getTime() : 0}`;
}

/** The `n` best dot products with `query` among `rows` (all when `allowed` is absent), best first. */
export function nearest(
  cached: Pick<VersionVectors, 'ids' | 'vectors'>,
  dimensions: number,
  query: readonly number[],
  n: number,
  allowed?: ReadonlySet<string>,
): Array<{ id: string; cosine: number }> {
  const q = Float32Array.from(query);
  const best: Array<{ id: string; cosine: number }> = [];
  let floor = -Infinity;
  for (let row = 0; row < cached.ids.length; row++) {
    const id = cached.ids[row]!;
    if (allowed && !allowed.has(id)) continue;
    let dot = 0;
    const offset = row * dimensions;
    for (let i = 0; i < dimensions; i++) dot += cached.vectors[offset + i]! * q[i]!;
    if (best.length < n || dot > floor) {
      best.push({ id, cosine: dot });
      if (best.length > n * 2) {
        best.sort((a, b) => b.cosine - a.cosine);
        best.length = n;
        floor = best[n - 1]!.cosine;
      }
    }
  }
  best.sort((a, b) => b.cosine - a.cosine || (a.id < b.id ? -1 : 1));
  return best.slice(0, n);
}
