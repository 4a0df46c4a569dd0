import { testEnv, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { createDatabase, dropSchema, migrateToLatest, serviceSchema } from './database';
import { projectionProgressMigrations, type ProjectionProgressTables } from './projection-progress/projection-progress';

describe('per-service schemas and migrations', () => {
  const schema = serviceSchema('checkpoint', testNamespace());
  let db: Kysely<ProjectionProgressTables>;
  let applied: string[];
  beforeAll(async () => {
    db = createDatabase<ProjectionProgressTables>({ url: testEnv().databaseUrl, schema, maxConnections: 2 });
    applied = await migrateToLatest(db as Kysely<unknown>, schema, projectionProgressMigrations);
  });
  afterAll(async () => {
    await dropSchema(db as Kysely<unknown>, schema);
    await db.destroy();
  });

  it('names schemas after the namespace and the owning service', () => {
    expect(serviceSchema('trace')).toBe('trace');
    expect(serviceSchema('trace-recorder', 'ns1')).toBe('ns1_trace_recorder');
    expect(() => serviceSchema('x', 'Bad-Name')).toThrow(/invalid schema name/);
  });

  it('returns the names of the migrations it applied', () => {
    expect(applied).toEqual(Object.keys(projectionProgressMigrations));
  });

  it('migrates once: a second run changes nothing', async () => {
    await expect(migrateToLatest(db as Kysely<unknown>, schema, projectionProgressMigrations)).resolves.toEqual([]);
    const tables = await db.introspection.getTables();
    expect(tables.filter((t) => t.schema === schema).map((t) => t.name)).toEqual(['run_progress']);
  });
});
