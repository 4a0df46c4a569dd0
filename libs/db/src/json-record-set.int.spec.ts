import { testEnv, testNamespace } from '@spindle/testing';
import { sql, type Kysely } from 'kysely';
import { createDatabase, dropSchema, serviceSchema } from './database';
import { jsonRecordSet, recordSetNames, type RecordSetColumns } from './json-record-set';

interface Tables {
  notes: { id: number; body: string | null; at: string | null; doc: unknown; score: number | null };
}
type NoteRow = { id: number; body?: string | null; at?: string | null; doc?: string | null; score?: number | null };
const COLUMNS: RecordSetColumns<NoteRow> = { id: 'integer', body: 'text', at: 'timestamptz', doc: 'jsonb', score: 'double precision' };

describe('jsonRecordSet', () => {
  const schema = serviceSchema('recordset', testNamespace());
  let db: Kysely<Tables>;
  beforeAll(async () => {
    db = createDatabase<Tables>({ url: testEnv().databaseUrl, schema, maxConnections: 1 });
    await sql`create schema ${sql.id(schema)}`.execute(db);
    await sql`create table notes (id integer primary key, body text, at timestamptz, doc jsonb, score double precision)`.execute(db);
  });
  afterAll(async () => {
    await dropSchema(db as unknown as Kysely<unknown>, schema);
    await db.destroy();
  });

  const insert = (rows: NoteRow[]) =>
    db
      .insertInto('notes')
      .columns(recordSetNames(COLUMNS))
      .expression(jsonRecordSet(rows, COLUMNS))
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ body: eb.ref('excluded.body') })));

  it('sends a batch of rows as one parameter in one short statement', () => {
    const compiled = insert([{ id: 1 }, { id: 2 }, { id: 3 }]).compile();
    expect(compiled.sql).toBe(
      'insert into "notes" ("id", "body", "at", "doc", "score") ' +
        "select (r.e->>'id')::integer, (r.e->>'body')::text, (r.e->>'at')::timestamptz, r.e->'doc', (r.e->>'score')::double precision " +
        'from jsonb_array_elements($1::jsonb) as r(e) on conflict ("id") do update set "body" = "excluded"."body"',
    );
    expect(compiled.parameters).toHaveLength(1);
  });

  it('stores each value as its column type: JSON text as jsonb, a missing or null value as NULL, quotes and unicode intact', async () => {
    await insert([
      { id: 1, body: 'it\'s "quoted" \\ and ünïcode ✓', at: '2026-12-07T10:00:00.123Z', doc: JSON.stringify({ a: [1, 'x'] }), score: 0.25 },
      { id: 2, body: null },
      { id: 3, doc: 'null' },
    ]).execute();
    // JSON null in a jsonb column stays JSON null; an absent value is SQL NULL.
    const { rows: kinds } = await sql<{
      id: number;
      kind: string | null;
    }>`select id, jsonb_typeof(doc) as kind from notes order by id`.execute(db);
    expect(kinds).toEqual([
      { id: 1, kind: 'object' },
      { id: 2, kind: null },
      { id: 3, kind: 'null' },
    ]);
    const rows = await db.selectFrom('notes').selectAll().orderBy('id').execute();
    expect(rows).toEqual([
      { id: 1, body: 'it\'s "quoted" \\ and ünïcode ✓', at: new Date('2026-12-07T10:00:00.123Z'), doc: { a: [1, 'x'] }, score: 0.25 },
      { id: 2, body: null, at: null, doc: null, score: null },
      { id: 3, body: null, at: null, doc: null, score: null },
    ]);
  });

  it('refuses a NUL the way Postgres refuses data (a data exception the projections route around)', async () => {
    await expect(insert([{ id: 9, body: 'a\u0000b' }]).execute()).rejects.toMatchObject({ code: expect.stringMatching(/^22/) });
  });
});
