import { createDatabase, gatewayMigrations, migrateToLatest, type GatewayTables } from '@spindle/db';
import { OfflineHashEmbeddingModel } from '@spindle/llm';
import { openTestSchema, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { chunkText } from './chunk-text';
import { searchChunks } from './chunk-search';
import { embedTexts } from './embed-texts';
import { KnowledgeBaseRepository } from './knowledge-base.repository';
import { KnowledgeDocumentRepository } from './knowledge-document.repository';
import { startPgliteVector } from './pglite-vector';
import { VectorCache } from './vector-cache';
import { hasVectorColumn } from './vector-index';

const model = new OfflineHashEmbeddingModel(64);
const DOCS = {
  refunds: 'Refunds are paid to the original card within five working days of the return arriving.',
  shipping: 'Parcels ship from Rotterdam; express shipping reaches most of Europe the next day.',
  warranty: 'The warranty covers manufacturing faults for two years; accidental damage is not covered.',
};

/** The same cases on Postgres 15 (exact search over real[]) and on PGlite with pgvector (HNSW per base version). */
function describeSearch(label: string, open: () => Promise<{ db: Kysely<GatewayTables>; close(): Promise<void> }>, vectorPath: boolean) {
  describe(`knowledge search on ${label}`, () => {
    let db: Kysely<GatewayTables>;
    let close: () => Promise<void>;
    let bases: KnowledgeBaseRepository;
    let docs: KnowledgeDocumentRepository;
    beforeAll(async () => {
      ({ db, close } = await open());
      const now = new Date();
      await db
        .insertInto('tenants')
        .values([
          { id: 'acme', name: 'Acme', operator: false, created_at: now, updated_at: now },
          { id: 'globex', name: 'Globex', operator: false, created_at: now, updated_at: now },
        ])
        .onConflict((oc) => oc.doNothing())
        .execute();
      bases = new KnowledgeBaseRepository(db);
      docs = new KnowledgeDocumentRepository(db);
    });
    afterAll(() => close());

    async function ingest(tenant: string, base: string, id: string, text: string, metadata: Record<string, unknown>) {
      const v = await bases.get(tenant, base);
      await docs.insertPending({
        id,
        baseId: v.baseId,
        tenant,
        version: v.version,
        source: `${id}.md`,
        mediaType: 'text/markdown',
        bytes: 1,
        sha256: 'x',
        metadata,
      });
      const row = (await docs.claim(id, 60_000))!;
      const chunks = chunkText(text, v.chunking);
      const vectors = await embedTexts(
        model,
        chunks.map((c) => c.text),
        v.dimensions,
      );
      expect(
        await docs.writeChunks(
          row,
          chunks.map((c, i) => ({ ...c, embedding: vectors[i] })),
        ),
      ).toBe(true);
    }

    const search = async (
      tenant: string,
      base: string,
      query: string,
      more: { topK?: number; minScore?: number; filter?: Record<string, string> } = {},
    ) => {
      const v = await bases.get(tenant, base);
      const [embedding] = await embedTexts(model, [query], v.dimensions);
      return searchChunks(db, v, { query, embedding, topK: more.topK ?? 3, minScore: more.minScore, filter: more.filter });
    };

    it(`uses the ${vectorPath ? 'pgvector' : 'exact'} path`, async () => {
      expect(await hasVectorColumn(db)).toBe(vectorPath);
    });

    it('finds the chunk that answers, best first, within the tenant, filtered by metadata and cut at minScore', async () => {
      const save = { embeddingModel: 'offline:hash-64', dimensions: 64, chunking: { size: 64, overlap: 8 } };
      expect((await bases.save('acme', 'support', save)).created).toBe(true);
      await bases.save('globex', 'support', save);
      for (const [key, text] of Object.entries(DOCS)) await ingest('acme', 'support', `doc_${key.padEnd(26, '0')}`, text, { topic: key });
      await ingest('globex', 'support', `doc_${'globexrefunds'.padEnd(26, '0')}`, 'Globex refunds go to store credit.', {
        topic: 'refunds',
      });

      const hits = await search('acme', 'support', 'when are refunds paid to my card?');
      expect(hits[0]).toMatchObject({ source: `doc_${'refunds'.padEnd(26, '0')}.md`, metadata: { topic: 'refunds' } });
      expect(hits[0].text).toBe(DOCS.refunds);
      expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
      expect(hits.every((h) => !h.text.includes('Globex'))).toBe(true);

      const filtered = await search('acme', 'support', 'when are refunds paid to my card?', { filter: { topic: 'warranty' } });
      expect(filtered.map((h) => h.metadata?.topic)).toEqual(['warranty']);
      const strict = await search('acme', 'support', 'when are refunds paid to my card?', { minScore: hits[0].score });
      expect(strict.map((h) => h.id)).toEqual([hits[0].id]);
      expect(await search('acme', 'support', 'refunds', { topK: 1 })).toHaveLength(1);
    });

    it('opens a version on a change of model or chunking, not of description; the new version searches only its own chunks', async () => {
      const save = { embeddingModel: 'offline:hash-64', dimensions: 64, chunking: { size: 64, overlap: 8 } };
      expect((await bases.save('acme', 'support', { ...save, description: 'help' })).base.version).toBe(1);
      const next = await bases.save('acme', 'support', { ...save, chunking: { size: 128, overlap: 8 } });
      expect(next.base).toMatchObject({ version: 2, description: 'help', chunks: 0, documents: 3 });
      expect(await search('acme', 'support', 'refunds')).toEqual([]);
      const cache = new VectorCache();
      const v2 = await bases.get('acme', 'support');
      const [q] = await embedTexts(model, ['refunds'], v2.dimensions);
      expect(await searchChunks(db, v2, { query: 'refunds', embedding: q, topK: 3 }, cache)).toEqual([]);
      await ingest('acme', 'support', `doc_${'refunds2'.padEnd(26, '0')}`, DOCS.refunds, { topic: 'refunds' });
      // A cache that held the empty version reads it again: its ready documents changed.
      expect((await searchChunks(db, v2, { query: 'refunds', embedding: q, topK: 3 }, cache)).map((h) => h.text)).toEqual([DOCS.refunds]);
    });

    it("deletes a base with its documents and chunks, leaving another tenant's base", async () => {
      expect(await bases.delete('acme', 'support')).toBe(true);
      expect(await bases.find('acme', 'support')).toBeUndefined();
      const left = await db.selectFrom('knowledge_chunks').select('text').execute();
      expect(left.map((r) => r.text)).toEqual(['Globex refunds go to store credit.']);
    });
  });
}

describeSearch(
  'Postgres',
  async () => {
    const { db, drop } = await openTestSchema<GatewayTables>('gateway', testNamespace(), gatewayMigrations);
    return { db, close: drop };
  },
  false,
);

describeSearch(
  'PGlite with pgvector',
  async () => {
    const pglite = await startPgliteVector();
    // PGlite serves one connection at a time.
    const db = createDatabase<GatewayTables>({ url: pglite.url, schema: 'gateway', maxConnections: 1 });
    await migrateToLatest(db as Kysely<unknown>, 'gateway', gatewayMigrations);
    return {
      db,
      async close() {
        await db.destroy();
        await pglite.stop();
      },
    };
  },
  true,
);
