import type { MetadataFilter, RetrievedChunk } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { candidateCount, hybridScore, TEXT_WEIGHT, textQuery, VECTOR_WEIGHT } from './hybrid-score';
import type { BaseVersion } from './knowledge-base.repository';
import { vectorLiteral } from './knowledge-document.repository';
import { nearest, VectorCache } from './vector-cache';
import { hasVectorColumn } from './vector-index';

export interface ChunkSearch {
  query: string;
  /** The query's embedding, normalised, of the version's dimensions. */
  embedding: number[];
  topK: number;
  minScore?: number;
  filter?: MetadataFilter;
}

type ChunkRow = { id: string; source: string; text: string; tokens: number; metadata: Record<string, unknown> };

/**
 * Hybrid search over one base version: candidates are the chunks nearest the query vector and
 * the chunks matching its words; each is scored `0.7·cosine + 0.3·text rank` (hybrid-score.ts),
 * `minScore` and `topK` apply to that score. Nearest chunks come from the version's HNSW index
 * where pgvector is installed (approximate); else from an exact scan of the version's vectors in
 * memory (`VectorCache`), linear in the base's size.
 */
export async function searchChunks(
  db: Kysely<GatewayTables>,
  base: BaseVersion,
  search: ChunkSearch,
  cache: VectorCache = new VectorCache(),
): Promise<RetrievedChunk[]> {
  const tq = textQuery(search.query);
  const filter = search.filter && Object.keys(search.filter).length ? JSON.stringify(search.filter) : null;
  const byMetadata = filter ? sql` and c.metadata @> ${filter}::jsonb` : sql``;
  const inVersion = sql`c.base_id = ${base.baseId} and c.version = ${base.version}${byMetadata}`;
  return (await hasVectorColumn(db))
    ? searchWithIndex(db, base, search, tq, inVersion)
    : searchExactly(db, base, search, tq, inVersion, filter !== null, cache);
}

async function searchWithIndex(
  db: Kysely<GatewayTables>,
  base: BaseVersion,
  search: ChunkSearch,
  tq: string | null,
  inVersion: RawBuilder<unknown>,
) {
  const dims = sql.raw(String(Math.trunc(base.dimensions)));
  const q = sql`(${vectorLiteral(search.embedding)}::public.vector(${dims}))`;
  const distance = sql`((c.embedding_vec::public.vector(${dims})) OPERATOR(public.<=>) ${q})`;
  const nearestIds = sql`select c.id from knowledge_chunks c where ${inVersion} order by ${distance} limit ${candidateCount(search.topK)}`;
  const candidates = tq
    ? sql`c.id in (select id from (${nearestIds}) n union select id from (${textCandidates(inVersion, tq, search.topK)}) w)`
    : sql`c.id in (${nearestIds})`;
  const rank = tq ? sql`ts_rank_cd(c.tsv, to_tsquery('english', ${tq}), 32)` : sql`0`;
  const result = await sql<ChunkRow & { score: number }>`
    select * from (
      select c.id, c.source, c.text, c.tokens, c.metadata,
        ${VECTOR_WEIGHT} * greatest(1 - ${distance}, 0) + ${TEXT_WEIGHT} * least(${rank}, 1) as score
      from knowledge_chunks c where ${candidates}
    ) s
    where s.score >= ${search.minScore ?? 0}
    order by s.score desc, s.id
    limit ${search.topK}`.execute(db);
  return result.rows.map((r) => toChunk(r, Number(r.score)));
}

async function searchExactly(
  db: Kysely<GatewayTables>,
  base: BaseVersion,
  search: ChunkSearch,
  tq: string | null,
  inVersion: RawBuilder<unknown>,
  filtered: boolean,
  cache: VectorCache,
) {
  const n = candidateCount(search.topK);
  const vectors = await cache.load(db, base);
  const allowed = filtered
    ? new Set((await sql<{ id: string }>`select c.id from knowledge_chunks c where ${inVersion}`.execute(db)).rows.map((r) => r.id))
    : undefined;
  const cosine = new Map(nearest(vectors, base.dimensions, search.embedding, n, allowed).map((h) => [h.id, h.cosine]));
  const ranks = new Map<string, number>();
  if (tq) {
    const rows = await sql<{ id: string; rank: number }>`
      select c.id, ts_rank_cd(c.tsv, to_tsquery('english', ${tq}), 32) as rank from knowledge_chunks c
      where ${inVersion} and c.tsv @@ to_tsquery('english', ${tq}) order by rank desc limit ${n}`.execute(db);
    for (const r of rows.rows) ranks.set(r.id, Number(r.rank));
    const textOnly = new Set([...ranks.keys()].filter((id) => !cosine.has(id)));
    if (textOnly.size)
      for (const h of nearest(vectors, base.dimensions, search.embedding, textOnly.size, textOnly)) cosine.set(h.id, h.cosine);
  }
  const scored = [...new Set([...cosine.keys(), ...ranks.keys()])]
    .map((id) => ({ id, score: hybridScore(cosine.get(id) ?? 0, ranks.get(id) ?? 0) }))
    .filter((s) => s.score >= (search.minScore ?? 0))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, search.topK);
  if (scored.length === 0) return [];
  const rows = await db
    .selectFrom('knowledge_chunks')
    .select(['id', 'source', 'text', 'tokens', 'metadata'])
    .where(
      'id',
      'in',
      scored.map((s) => s.id),
    )
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r as ChunkRow]));
  return scored.flatMap((s) => {
    const row = byId.get(s.id);
    return row ? [toChunk(row, s.score)] : [];
  });
}

function textCandidates(inVersion: RawBuilder<unknown>, tq: string, topK: number) {
  return sql`select c.id from knowledge_chunks c where ${inVersion} and c.tsv @@ to_tsquery('english', ${tq})
    order by ts_rank_cd(c.tsv, to_tsquery('english', ${tq}), 32) desc limit ${candidateCount(topK)}`;
}

function toChunk(r: ChunkRow, score: number): RetrievedChunk {
  return {
    id: r.id,
    source: r.source,
    score,
    tokens: r.tokens,
    text: r.text,
    ...(r.metadata && Object.keys(r.metadata).length ? { metadata: r.metadata } : {}),
  };
}
