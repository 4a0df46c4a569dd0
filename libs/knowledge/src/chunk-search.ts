import type { MetadataFilter, RetrievedChunk } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { candidateCount, TEXT_WEIGHT, textQuery, VECTOR_WEIGHT } from './hybrid-score';
import type { BaseVersion } from './knowledge-base.repository';
import { vectorLiteral } from './knowledge-document.repository';
import { hasVectorColumn } from './vector-index';

export interface ChunkSearch {
  query: string;
  /** The query's embedding, normalised, of the version's dimensions. */
  embedding: number[];
  topK: number;
  minScore?: number;
  filter?: MetadataFilter;
}

/**
 * Hybrid search over one base version: candidates are the chunks nearest the query vector and
 * the chunks matching its words; each is scored `0.7·cosine + 0.3·text rank` (hybrid-score.ts),
 * `minScore` and `topK` apply to that score. Nearest chunks come from the version's HNSW index
 * where pgvector is installed (approximate), else from an exact scan of the version's rows
 * (every chunk's dot product: linear in the base's size).
 */
export async function searchChunks(db: Kysely<GatewayTables>, base: BaseVersion, search: ChunkSearch): Promise<RetrievedChunk[]> {
  const pgvector = await hasVectorColumn(db);
  const tq = textQuery(search.query);
  const filter = search.filter && Object.keys(search.filter).length ? JSON.stringify(search.filter) : null;
  const inVersion = sql`c.base_id = ${base.baseId} and c.version = ${base.version}${filter ? sql` and c.metadata @> ${filter}::jsonb` : sql``}`;
  const nearest = pgvector ? annCandidates(base, search, inVersion) : null;
  const words = tq
    ? sql`select c.id from knowledge_chunks c where ${inVersion} and c.tsv @@ to_tsquery('simple', ${tq})
          order by ts_rank_cd(c.tsv, to_tsquery('simple', ${tq}), 32) desc limit ${candidateCount(search.topK)}`
    : null;
  // Exact: every chunk of the version is a candidate.
  const candidates = nearest
    ? sql`c.id in (select id from (${nearest}) n${words ? sql` union select id from (${words}) w` : sql``})`
    : inVersion;
  const rank = tq ? sql`ts_rank_cd(c.tsv, to_tsquery('simple', ${tq}), 32)` : sql`0`;
  const result = await sql<{ id: string; source: string; text: string; tokens: number; metadata: Record<string, unknown>; score: number }>`
    select * from (
      select c.id, c.source, c.text, c.tokens, c.metadata,
        ${VECTOR_WEIGHT} * greatest(knowledge_dot(c.embedding, ${search.embedding}::real[]), 0) + ${TEXT_WEIGHT} * least(${rank}, 1) as score
      from knowledge_chunks c where ${candidates}
    ) s
    where s.score >= ${search.minScore ?? 0}
    order by s.score desc, s.id
    limit ${search.topK}`.execute(db);
  return result.rows.map((r) => ({
    id: r.id,
    source: r.source,
    score: Number(r.score),
    tokens: r.tokens,
    text: r.text,
    ...(r.metadata && Object.keys(r.metadata).length ? { metadata: r.metadata } : {}),
  }));
}

function annCandidates(base: BaseVersion, search: ChunkSearch, inVersion: RawBuilder<unknown>) {
  const dims = sql.raw(String(Math.trunc(base.dimensions)));
  return sql`select c.id from knowledge_chunks c where ${inVersion}
    order by (c.embedding_vec::public.vector(${dims})) OPERATOR(public.<=>) (${vectorLiteral(search.embedding)}::public.vector(${dims}))
    limit ${candidateCount(search.topK)}`;
}
