import type { Kysely, Migration } from 'kysely';

/**
 * How far a projection has applied each run's log. The checkpoint and approval services keep
 * it until they own richer tables; it makes their consumers idempotent on `(run_id, seq)`.
 */
export interface ProjectionProgressTables {
  run_progress: { run_id: string; last_seq: number; last_type: string };
}

export const projectionProgressMigrations: Record<string, Migration> = {
  '0001_run_progress': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('run_progress')
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('last_seq', 'integer', (c) => c.notNull())
        .addColumn('last_type', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('run_progress').execute();
    },
  },
};

/** Records the highest seq seen per run; older or repeated events change nothing. */
export async function recordProgress(db: Kysely<ProjectionProgressTables>, rows: Array<{ runId: string; seq: number; type: string }>): Promise<void> {
  const latest = new Map<string, { seq: number; type: string }>();
  for (const r of rows) if ((latest.get(r.runId)?.seq ?? 0) < r.seq) latest.set(r.runId, { seq: r.seq, type: r.type });
  if (latest.size === 0) return;
  await db
    .insertInto('run_progress')
    .values([...latest].map(([run_id, v]) => ({ run_id, last_seq: v.seq, last_type: v.type })))
    .onConflict((oc) =>
      oc.column('run_id').doUpdateSet((eb) => ({ last_seq: eb.ref('excluded.last_seq'), last_type: eb.ref('excluded.last_type') })).where('run_progress.last_seq', '<', (eb) => eb.ref('excluded.last_seq')),
    )
    .execute();
}
