import {
  actorSchema,
  SpindleError,
  type Actor,
  type Dataset,
  type DatasetItem,
  type DatasetItemsAdded,
  type NewDatasetItem,
} from '@spindle/contracts';
import type { DatasetItemsTable, DatasetsTable, GatewayTables } from '@spindle/db';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { monotonicFactory } from 'ulid';

/** Item ids in the order items were added, within one millisecond too: a version's items are read in that order. */
const itemUlid = monotonicFactory();

/** An item ready to store: what was given, and the run it was taken from. */
export type StoredItemDraft = NewDatasetItem & { sourceRunId?: string };

const notFound = (name: string) => new SpindleError('dataset_not_found', `no dataset named "${name}"`);

/** A tenant's datasets and their items; every change of items is one new version, in one transaction. */
export class DatasetRepository {
  constructor(private readonly db: Kysely<GatewayTables>) {}

  /** Creates the dataset (`created: true`) or changes its description. */
  async save(tenant: string, name: string, description: string | undefined, by: Actor): Promise<{ dataset: Dataset; created: boolean }> {
    const now = new Date();
    const row = await this.db
      .insertInto('datasets')
      .values({
        tenant_id: tenant,
        name,
        description: description ?? null,
        created_at: now,
        created_by: JSON.stringify(by),
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'name']).doUpdateSet({ description: description ?? null, updated_at: now }))
      .returningAll()
      .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
      .executeTakeFirstOrThrow();
    return { dataset: await this.withCount(row, row.version), created: row.inserted };
  }

  async list(tenant: string): Promise<Dataset[]> {
    const rows = await this.db.selectFrom('datasets').selectAll().where('tenant_id', '=', tenant).orderBy('name').execute();
    return Promise.all(rows.map((r) => this.withCount(r, r.version)));
  }

  /** The dataset as of `version` (its latest by default); a version it never had is `404 version_not_found`. */
  async get(tenant: string, name: string, version?: number): Promise<Dataset> {
    const row = await this.row(this.db, tenant, name);
    return this.withCount(row, this.versionOf(row, version));
  }

  async delete(tenant: string, name: string): Promise<void> {
    const { numDeletedRows } = await this.db
      .deleteFrom('datasets')
      .where('tenant_id', '=', tenant)
      .where('name', '=', name)
      .executeTakeFirst();
    if (numDeletedRows === 0n) throw notFound(name);
  }

  /** Adds the items as the next version, all or none. */
  async add(tenant: string, name: string, items: readonly StoredItemDraft[]): Promise<DatasetItemsAdded> {
    return this.db.transaction().execute(async (trx) => {
      const version = await this.nextVersion(trx, tenant, name);
      const now = new Date();
      const rows = items.map((item) => ({
        tenant_id: tenant,
        dataset: name,
        item_id: `di_${itemUlid()}`,
        input: JSON.stringify(item.input ?? null),
        expected: item.expected === undefined ? null : JSON.stringify(item.expected),
        metadata: item.metadata ? JSON.stringify(item.metadata) : null,
        source_run_id: item.sourceRunId ?? null,
        added_in: version,
        removed_in: null,
        created_at: now,
      }));
      // In parts well under Postgres' bind-parameter limit.
      for (let i = 0; i < rows.length; i += 500)
        await trx
          .insertInto('dataset_items')
          .values(rows.slice(i, i + 500))
          .execute();
      return { version, itemIds: rows.map((r) => r.item_id) };
    });
  }

  /** Removes an item from the next version on (the versions before keep it). */
  async remove(tenant: string, name: string, itemId: string): Promise<{ version: number }> {
    return this.db.transaction().execute(async (trx) => {
      const item = await trx
        .selectFrom('dataset_items')
        .select('removed_in')
        .where('tenant_id', '=', tenant)
        .where('dataset', '=', name)
        .where('item_id', '=', itemId)
        .forUpdate()
        .executeTakeFirst();
      if (!item || item.removed_in !== null)
        throw new SpindleError('dataset_not_found', `dataset "${name}" has no item ${itemId} (or it was removed)`);
      const version = await this.nextVersion(trx, tenant, name);
      await trx
        .updateTable('dataset_items')
        .set({ removed_in: version })
        .where('tenant_id', '=', tenant)
        .where('dataset', '=', name)
        .where('item_id', '=', itemId)
        .execute();
      return { version };
    });
  }

  /** A page of the items of `version` (the latest by default), oldest first, after the item id `after`. */
  async items(
    tenant: string,
    name: string,
    opts: { version?: number; limit: number; after?: string },
  ): Promise<{ version: number; items: DatasetItem[]; nextCursor: string | null }> {
    const row = await this.row(this.db, tenant, name);
    const version = this.versionOf(row, opts.version);
    let query = this.inVersion(tenant, name, version);
    if (opts.after !== undefined) query = query.where('item_id', '>', opts.after);
    const rows = await query
      .orderBy('item_id')
      .limit(opts.limit + 1)
      .execute();
    const page = rows.slice(0, opts.limit).map(toItem);
    return { version, items: page, nextCursor: rows.length > opts.limit ? page.at(-1)!.itemId : null };
  }

  private inVersion(tenant: string, name: string, version: number) {
    return this.db
      .selectFrom('dataset_items')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('dataset', '=', name)
      .where('added_in', '<=', version)
      .where((eb) => eb.or([eb('removed_in', 'is', null), eb('removed_in', '>', version)]));
  }

  private async withCount(row: Selectable<DatasetsTable>, version: number): Promise<Dataset> {
    const { count } = await this.inVersion(row.tenant_id, row.name, version)
      .clearSelect()
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .executeTakeFirstOrThrow();
    return {
      name: row.name,
      description: row.description,
      version: row.version,
      items: Number(count),
      createdAt: row.created_at.toISOString(),
      createdBy: actorSchema.parse(row.created_by),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  private versionOf(row: Selectable<DatasetsTable>, version: number | undefined): number {
    if (version === undefined) return row.version;
    if (version > row.version)
      throw new SpindleError('version_not_found', `dataset "${row.name}" has no version ${version} (latest ${row.version})`);
    return version;
  }

  /** Locks the dataset's row and moves it to its next version. */
  private async nextVersion(trx: Transaction<GatewayTables>, tenant: string, name: string): Promise<number> {
    const moved = await trx
      .updateTable('datasets')
      .set((eb) => ({ version: eb('version', '+', 1), updated_at: new Date() }))
      .where('tenant_id', '=', tenant)
      .where('name', '=', name)
      .returning('version')
      .executeTakeFirst();
    if (!moved) throw notFound(name);
    return moved.version;
  }

  private async row(db: Kysely<GatewayTables>, tenant: string, name: string): Promise<Selectable<DatasetsTable>> {
    const row = await db.selectFrom('datasets').selectAll().where('tenant_id', '=', tenant).where('name', '=', name).executeTakeFirst();
    if (!row) throw notFound(name);
    return row;
  }
}

function toItem(row: Selectable<DatasetItemsTable>): DatasetItem {
  return {
    itemId: row.item_id,
    input: row.input,
    expected: row.expected ?? null,
    metadata: (row.metadata as Record<string, unknown> | null) ?? null,
    sourceRunId: row.source_run_id,
    addedIn: row.added_in,
  };
}
