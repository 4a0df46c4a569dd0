import { createDatabase, dropSchema, gatewayMigrations, migrateToLatest, serviceSchema, type GatewayTables } from '@spindle/db';
import {
  chunkText,
  embedTexts,
  KnowledgeBaseRepository,
  KnowledgeDocumentRepository,
  searchChunks,
  startPgliteVector,
  VectorCache,
} from '@spindle/knowledge';
import { OfflineHashEmbeddingModel } from '@spindle/llm';
import type { Kysely } from 'kysely';
import { median, percentile } from './stats';

export interface KnowledgeFigures {
  ingestion: { chunks: number; tokens: number; chunksPerSec: number };
  searches: Array<{ store: 'postgres exact' | 'pglite pgvector'; chunks: number; p50Ms: number; p99Ms: number }>;
}

const DIMENSIONS = 256;
const model = new OfflineHashEmbeddingModel(DIMENSIONS);
const VOCABULARY = Array.from({ length: 3_000 }, (_, i) => `w${(i * 2_654_435_761) % 1_000_003}`);

/** A deterministic pseudo-random paragraph: the same bench inserts the same chunks. */
function paragraph(seed: number, words = 60): string {
  let x = seed * 48_271 + 11;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    x = (x * 48_271) % 2_147_483_647;
    out.push(VOCABULARY[x % VOCABULARY.length]!);
  }
  return `${out.join(' ')}.`;
}

async function openBase(db: Kysely<GatewayTables>) {
  const now = new Date();
  await db.insertInto('tenants').values({ id: 'bench', name: 'bench', operator: false, created_at: now, updated_at: now }).execute();
  const bases = new KnowledgeBaseRepository(db);
  await bases.save('bench', 'kb', {
    embeddingModel: `offline:hash-${DIMENSIONS}`,
    dimensions: DIMENSIONS,
    chunking: { size: 128, overlap: 16 },
  });
  return { bases, docs: new KnowledgeDocumentRepository(db), base: await bases.get('bench', 'kb') };
}

/** Chunks written straight through the repository (one document per 1,000), as ingestion writes them. */
async function fill(kb: Awaited<ReturnType<typeof openBase>>, from: number, to: number): Promise<void> {
  const { docs, base } = kb;
  for (let start = from; start < to; start += 1_000) {
    const id = `doc_${String(start).padStart(26, '0')}`;
    await docs.insertPending({
      id,
      baseId: base.baseId,
      tenant: 'bench',
      version: base.version,
      source: `${id}.md`,
      mediaType: 'text/plain',
      bytes: 1,
      sha256: 'x',
      metadata: {},
    });
    const row = (await docs.claim(id, 600_000))!;
    const texts = Array.from({ length: Math.min(1_000, to - start) }, (_, i) => paragraph(start + i));
    const vectors = await embedTexts(model, texts, DIMENSIONS);
    await docs.writeChunks(
      row,
      texts.map((text, i) => ({ ord: i, text, tokens: 60, embedding: vectors[i]! })),
    );
  }
}

async function searchLatency(db: Kysely<GatewayTables>, rounds = 60, cache = new VectorCache()): Promise<{ p50Ms: number; p99Ms: number }> {
  const base = await new KnowledgeBaseRepository(db).get('bench', 'kb');
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const query = paragraph(1_000_000 + i, 8);
    const t = performance.now();
    const [embedding] = await embedTexts(model, [query], DIMENSIONS);
    await searchChunks(db, base, { query, embedding: embedding!, topK: 5 }, cache);
    samples.push(performance.now() - t);
  }
  // The first searches warm caches and plans; the figure is the steady state.
  const steady = samples.slice(10);
  return { p50Ms: median(steady), p99Ms: percentile(steady, 99) };
}

/**
 * Ingestion throughput (chunk, embed offline, write in one transaction) and the search's
 * latency, query embedding included, at 10,000 and 100,000 chunks: exact search on this
 * Postgres (no pgvector here) and HNSW on PGlite with pgvector (one connection, WASM).
 */
export async function measureKnowledge(databaseUrl: string, namespace: string, sizes = [10_000, 100_000]): Promise<KnowledgeFigures> {
  const schema = serviceSchema('gateway', `${namespace}_kb`);
  const db = createDatabase<GatewayTables>({ url: databaseUrl, schema, maxConnections: 2 });
  const figures: KnowledgeFigures = { ingestion: { chunks: 0, tokens: 0, chunksPerSec: 0 }, searches: [] };
  try {
    await migrateToLatest(db as Kysely<unknown>, schema, gatewayMigrations);
    const kb = await openBase(db);
    const { docs, base } = kb;
    const text = Array.from({ length: 400 }, (_, i) => paragraph(i, 90)).join('\n\n');
    const t = performance.now();
    await docs.insertPending({
      id: `doc_${'i'.repeat(26)}`,
      baseId: base.baseId,
      tenant: 'bench',
      version: base.version,
      source: 'big.md',
      mediaType: 'text/markdown',
      bytes: text.length,
      sha256: 'x',
      metadata: {},
    });
    const row = (await docs.claim(`doc_${'i'.repeat(26)}`, 600_000))!;
    const chunks = chunkText(text, base.chunking);
    const vectors = await embedTexts(
      model,
      chunks.map((c) => c.text),
      DIMENSIONS,
    );
    await docs.writeChunks(
      row,
      chunks.map((c, i) => ({ ...c, embedding: vectors[i]! })),
    );
    const seconds = (performance.now() - t) / 1_000;
    figures.ingestion = { chunks: chunks.length, tokens: chunks.reduce((n, c) => n + c.tokens, 0), chunksPerSec: chunks.length / seconds };
    console.error(`knowledge bench: ingestion ${JSON.stringify(figures.ingestion)}`);
    await db.deleteFrom('knowledge_documents').execute();
    let filled = 0;
    for (const size of sizes) {
      await fill(kb, filled, size);
      filled = size;
      figures.searches.push({ store: 'postgres exact', chunks: size, ...(await searchLatency(db)) });
      console.error(`knowledge bench: ${JSON.stringify(figures.searches.at(-1))}`);
    }
  } finally {
    await dropSchema(db as Kysely<unknown>, schema).catch(() => undefined);
    await db.destroy();
  }
  const pglite = await startPgliteVector();
  const vdb = createDatabase<GatewayTables>({ url: pglite.url, schema: 'gateway', maxConnections: 1 });
  try {
    await migrateToLatest(vdb as Kysely<unknown>, 'gateway', gatewayMigrations);
    const kb = await openBase(vdb);
    let filled = 0;
    for (const size of sizes) {
      await fill(kb, filled, size);
      filled = size;
      figures.searches.push({ store: 'pglite pgvector', chunks: size, ...(await searchLatency(vdb)) });
      console.error(`knowledge bench: ${JSON.stringify(figures.searches.at(-1))}`);
    }
  } finally {
    await vdb.destroy();
    await pglite.stop();
  }
  return figures;
}

if (require.main === module) {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const sizes = (process.env.KNOWLEDGE_BENCH_SIZES ?? '10000,100000').split(',').map(Number);
  measureKnowledge(url, `kbb${Date.now().toString(36)}`, sizes)
    .then((f) => console.log(JSON.stringify(f, null, 2)))
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
