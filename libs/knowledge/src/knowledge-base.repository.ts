import { SpindleError, type Chunking, type KnowledgeBase, type KnowledgeBaseSave } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import { sql, type Kysely, type Selectable } from 'kysely';
import { ulid } from 'ulid';
import type { KnowledgeBaseVersionsTable } from '@spindle/db';
import { versionChanges } from './version-change';
import { createVersionIndex, hasVectorColumn } from './vector-index';

type Db = Kysely<GatewayTables>;

/** The version a base searches and ingests into: what its chunks were cut and embedded with. */
export interface BaseVersion {
  baseId: string;
  tenant: string;
  name: string;
  version: number;
  embeddingModel: string;
  dimensions: number;
  chunking: Chunking;
}

/** Knowledge bases and their versions, per tenant. */
export class KnowledgeBaseRepository {
  constructor(private readonly db: Db) {}

  /** Creates the base, or updates it; a change of model, dimensions or chunking opens a new version (created: a new base). */
  async save(tenant: string, name: string, save: KnowledgeBaseSave, now = new Date()): Promise<{ base: KnowledgeBase; created: boolean }> {
    const created = await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('knowledge_bases')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('name', '=', name)
        .forUpdate()
        .executeTakeFirst();
      if (!row) {
        const id = `kb_${ulid().toLowerCase()}`;
        await trx
          .insertInto('knowledge_bases')
          .values({
            id,
            tenant_id: tenant,
            name,
            current_version: 1,
            description: save.description ?? null,
            created_at: now,
            updated_at: now,
          })
          .onConflict((oc) => oc.columns(['tenant_id', 'name']).doNothing())
          .execute();
        await this.addVersion(trx, id, 1, save, now);
        return true;
      }
      const current = await trx
        .selectFrom('knowledge_base_versions')
        .selectAll()
        .where('base_id', '=', row.id)
        .where('version', '=', row.current_version)
        .executeTakeFirstOrThrow();
      const version = versionChanges(toVersion(row, current).chunking, current, save) ? row.current_version + 1 : row.current_version;
      if (version !== row.current_version) await this.addVersion(trx, row.id, version, save, now);
      await trx
        .updateTable('knowledge_bases')
        .set({ current_version: version, description: save.description ?? row.description, updated_at: now })
        .where('id', '=', row.id)
        .execute();
      return false;
    });
    return { base: (await this.describe(tenant, name))!, created };
  }

  async find(tenant: string, name: string): Promise<BaseVersion | undefined> {
    const row = await this.db
      .selectFrom('knowledge_bases as b')
      .innerJoin('knowledge_base_versions as v', (j) => j.onRef('v.base_id', '=', 'b.id').onRef('v.version', '=', 'b.current_version'))
      .select(['b.id', 'b.tenant_id', 'b.name', 'v.version', 'v.embedding_model', 'v.dimensions', 'v.chunk_size', 'v.chunk_overlap'])
      .where('b.tenant_id', '=', tenant)
      .where('b.name', '=', name)
      .executeTakeFirst();
    return row && toVersion({ id: row.id, tenant_id: row.tenant_id, name: row.name }, row);
  }

  /** The base, or `knowledge_base_not_found`: another tenant's base does not exist for the caller. */
  async get(tenant: string, name: string): Promise<BaseVersion> {
    const base = await this.find(tenant, name);
    if (!base) throw new SpindleError('knowledge_base_not_found', `no knowledge base "${name}"`);
    return base;
  }

  async version(baseId: string, version: number): Promise<BaseVersion | undefined> {
    const row = await this.db
      .selectFrom('knowledge_bases as b')
      .innerJoin('knowledge_base_versions as v', 'v.base_id', 'b.id')
      .select(['b.id', 'b.tenant_id', 'b.name', 'v.version', 'v.embedding_model', 'v.dimensions', 'v.chunk_size', 'v.chunk_overlap'])
      .where('b.id', '=', baseId)
      .where('v.version', '=', version)
      .executeTakeFirst();
    return row && toVersion({ id: row.id, tenant_id: row.tenant_id, name: row.name }, row);
  }

  async describe(tenant: string, name: string): Promise<KnowledgeBase | undefined> {
    return (await this.list(tenant, name))[0];
  }

  async list(tenant: string, name?: string): Promise<KnowledgeBase[]> {
    let q = this.db
      .selectFrom('knowledge_bases as b')
      .innerJoin('knowledge_base_versions as v', (j) => j.onRef('v.base_id', '=', 'b.id').onRef('v.version', '=', 'b.current_version'))
      .select((eb) => [
        'b.name',
        'b.description',
        'b.created_at',
        'b.updated_at',
        'v.version',
        'v.embedding_model',
        'v.dimensions',
        'v.chunk_size',
        'v.chunk_overlap',
        eb
          .selectFrom('knowledge_documents as d')
          .select(sql<number>`count(*)::int`.as('n'))
          .whereRef('d.base_id', '=', 'b.id')
          .as('documents'),
        eb
          .selectFrom('knowledge_chunks as c')
          .select(sql<number>`count(*)::int`.as('n'))
          .whereRef('c.base_id', '=', 'b.id')
          .whereRef('c.version', '=', 'b.current_version')
          .as('chunks'),
      ])
      .where('b.tenant_id', '=', tenant)
      .orderBy('b.name')
      .limit(500);
    if (name !== undefined) q = q.where('b.name', '=', name);
    const rows = await q.execute();
    return rows.map((r) => ({
      name: r.name,
      version: r.version,
      embeddingModel: r.embedding_model,
      dimensions: r.dimensions,
      chunking: { size: r.chunk_size, overlap: r.chunk_overlap },
      description: r.description,
      documents: r.documents ?? 0,
      chunks: r.chunks ?? 0,
      createdAt: r.created_at.toISOString(),
      updatedAt: r.updated_at.toISOString(),
    }));
  }

  /** Deletes the base with its versions, documents and chunks (cascade); false when there was none. */
  async delete(tenant: string, name: string): Promise<boolean> {
    const r = await this.db.deleteFrom('knowledge_bases').where('tenant_id', '=', tenant).where('name', '=', name).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  private async addVersion(trx: Db, baseId: string, version: number, save: KnowledgeBaseSave, now: Date) {
    await trx
      .insertInto('knowledge_base_versions')
      .values({
        base_id: baseId,
        version,
        embedding_model: save.embeddingModel,
        dimensions: save.dimensions,
        chunk_size: save.chunking.size,
        chunk_overlap: save.chunking.overlap,
        created_at: now,
      })
      .execute();
    if (await hasVectorColumn(trx)) await createVersionIndex(trx, baseId, version, save.dimensions);
  }
}

function toVersion(
  base: { id: string; tenant_id?: string; name?: string },
  v: Pick<Selectable<KnowledgeBaseVersionsTable>, 'version' | 'embedding_model' | 'dimensions' | 'chunk_size' | 'chunk_overlap'>,
): BaseVersion {
  return {
    baseId: base.id,
    tenant: base.tenant_id ?? '',
    name: base.name ?? '',
    version: v.version,
    embeddingModel: v.embedding_model,
    dimensions: v.dimensions,
    chunking: { size: v.chunk_size, overlap: v.chunk_overlap },
  };
}
