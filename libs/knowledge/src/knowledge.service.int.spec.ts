import type { EmbeddingModelV3 } from '@ai-sdk/provider';
import { fileBucketOf, putFileBytes, type Bus } from '@spindle/bus';
import { gatewayMigrations, type GatewayTables } from '@spindle/db';
import { OfflineHashEmbeddingModel } from '@spindle/llm';
import { createLogger } from '@spindle/telemetry';
import { openTestSchema, testBus, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { KnowledgeService } from './knowledge.service';

/** The offline model, failing its calls while `failing` is set: a provider that goes down in the middle of a document. */
class FlakyModel extends OfflineHashEmbeddingModel {
  calls = 0;
  failFromCall = Infinity;
  override async doEmbed(options: Parameters<OfflineHashEmbeddingModel['doEmbed']>[0]) {
    if (++this.calls >= this.failFromCall) throw new Error('the provider went away');
    return super.doEmbed(options);
  }
}

describe('KnowledgeService ingestion on NATS and Postgres', () => {
  const namespace = testNamespace();
  let bus: Bus;
  let db: Kysely<GatewayTables>;
  let drop: () => Promise<void>;
  const model = new FlakyModel(64);
  let service: KnowledgeService;
  /** The bytes the service let go of, in order: a document's once it needs them no more. */
  const released: string[] = [];
  const releaseBytes = async (sha256: string) => void released.push(sha256);
  beforeAll(async () => {
    bus = await testBus(namespace, 'knowledge-test');
    ({ db, drop } = await openTestSchema<GatewayTables>('gateway', namespace, gatewayMigrations));
    const now = new Date();
    await db.insertInto('tenants').values({ id: 'acme', name: 'Acme', operator: false, created_at: now, updated_at: now }).execute();
    service = new KnowledgeService(
      bus,
      db,
      () => model as EmbeddingModelV3,
      { maxDocumentBytes: 1_000_000, leaseMs: 60_000, releaseBytes },
      createLogger('kb', { level: 'fatal' }),
    );
    await service.bases.save('acme', 'support', { embeddingModel: 'offline:hash-64', dimensions: 64, chunking: { size: 32, overlap: 0 } });
  });
  afterAll(async () => {
    await drop();
    await bus.jsm.streams.delete(`OBJ_${fileBucketOf(bus.names)}`).catch(() => undefined);
    await bus.close();
  });

  const shaOf = new Map<string, string>();
  async function addDocument(id: string, text: string) {
    const base = await service.bases.get('acme', 'support');
    const stored = await putFileBytes(bus, Buffer.from(text));
    shaOf.set(id, stored.sha256);
    await service.documents.insertPending({
      id,
      baseId: base.baseId,
      tenant: 'acme',
      version: base.version,
      source: `${id}.md`,
      mediaType: 'text/markdown',
      ...stored,
      metadata: {},
    });
  }
  const chunksOf = async (id: string) =>
    (
      await db
        .selectFrom('knowledge_chunks')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('document_id', '=', id)
        .executeTakeFirstOrThrow()
    ).n;

  it('writes nothing when the provider fails mid-document, keeps it pending, and ingests it whole once the provider is back', async () => {
    // ~600 chunks: three embedding calls of 256; the second fails (the SDK's retries too).
    const text = Array.from({ length: 1_200 }, (_, i) => `Paragraph ${i}: returns need the receipt and the original box, always.`).join(
      '\n\n',
    );
    const id = `doc_${'flaky'.padEnd(26, '0')}`;
    await addDocument(id, text);
    model.calls = 0;
    model.failFromCall = 2;
    await expect(service.ingest('acme', id)).rejects.toMatchObject({ code: 'provider_error' });
    expect(model.calls).toBeGreaterThanOrEqual(2);
    expect(await chunksOf(id)).toBe('0');
    expect(await service.documents.get('acme', (await service.bases.get('acme', 'support')).baseId, id)).toMatchObject({
      status: 'pending',
      chunks: 0,
      error: { code: 'provider_error' },
    });
    // A document that will be tried again keeps its bytes.
    expect(released).not.toContain(shaOf.get(id));
    model.failFromCall = Infinity;
    // The claim is held for its lease: the loop takes it only once the lease has passed.
    expect(await service.ingestPending()).toBe(0);
    await db
      .updateTable('knowledge_documents')
      .set({ lease_until: new Date(Date.now() - 1) })
      .where('id', '=', id)
      .execute();
    expect(await service.ingestPending()).toBe(1);
    const doc = await service.documents.get('acme', (await service.bases.get('acme', 'support')).baseId, id);
    expect(doc).toMatchObject({ status: 'ready', error: null });
    expect(doc.chunks).toBeGreaterThan(256);
    expect(await chunksOf(id)).toBe(String(doc.chunks));
    // Its chunks hold its text now: the bytes are let go.
    expect(released).toContain(shaOf.get(id));
  });

  it('ingests a document once when two ask at the same time', async () => {
    model.failFromCall = Infinity;
    const id = `doc_${'twice'.padEnd(26, '0')}`;
    await addDocument(id, 'Refunds are paid to the original card within five days.');
    const [a, b] = await Promise.all([service.ingest('acme', id), service.ingest('acme', id)]);
    // One ingests; the other finds it leased (pending) or, when it asks after the first is done, ready.
    expect([a.status, b.status]).toContain('ready');
    expect([a.status, b.status].every((s) => s === 'pending' || s === 'ready')).toBe(true);
    expect(await chunksOf(id)).toBe('1');
  });

  it('fails a document the dimension check refuses, with its code, and never retries it', async () => {
    const id = `doc_${'wrongdims'.padEnd(26, '0')}`;
    await addDocument(id, 'Express shipping arrives the next day.');
    const wide = new OfflineHashEmbeddingModel(128);
    const strict = new KnowledgeService(
      bus,
      db,
      () => wide,
      { maxDocumentBytes: 1_000_000, leaseMs: 60_000, releaseBytes },
      createLogger('kb', { level: 'fatal' }),
    );
    await expect(strict.ingest('acme', id)).rejects.toMatchObject({ code: 'embedding_dimension_mismatch' });
    await expect(strict.ingest('acme', id)).rejects.toMatchObject({ code: 'embedding_dimension_mismatch' });
    expect(await strict.documents.pendingIds(10)).not.toContain(id);
    expect(await chunksOf(id)).toBe('0');
    // Failed for good: nothing will read its bytes again.
    expect(released).toContain(shaOf.get(id));
  });
});
