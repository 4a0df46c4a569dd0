import type { TraceTables } from '@spindle/db';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { decodeRunCursor, encodeRunCursor } from './run-cursor';
import { listRunsQuery } from './trace.repository';

// Compiles only: no connection.
const db = new Kysely<TraceTables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

describe('listRunsQuery', () => {
  it('walks (queued_at, run_id) downwards from the cursor with a row comparison the paging indexes serve', () => {
    const cursor = encodeRunCursor({ queuedAt: '2025-03-01T10:00:00.123456+00:00', runId: 'run-9' });
    const query = listRunsQuery(db, { tenant: 'acme', workflow: 'support', status: 'completed', limit: 20, cursor }).compile();
    expect(query.sql).toBe(
      'select *, to_json(queued_at) #>> \'{}\' as "queued_at_text" from "runs" ' +
        'where "tenant" = $1 and "workflow" = $2 and "status" = $3 and ("queued_at", "run_id") < ($4::timestamptz, $5) ' +
        'order by "queued_at" desc, "run_id" desc limit $6',
    );
    expect(query.parameters).toEqual(['acme', 'support', 'completed', '2025-03-01T10:00:00.123456+00:00', 'run-9', 21]);
  });

  it('leaves out the filters and the cursor nobody asked for', () => {
    const query = listRunsQuery(db, { tenant: 'acme', limit: 50 }).compile();
    expect(query.sql).toBe(
      'select *, to_json(queued_at) #>> \'{}\' as "queued_at_text" from "runs" where "tenant" = $1 ' +
        'order by "queued_at" desc, "run_id" desc limit $2',
    );
  });
});

describe('run cursor', () => {
  it('round-trips and is opaque', () => {
    const cursor = encodeRunCursor({ queuedAt: '2025-03-01T10:00:00.5+00:00', runId: 'r"1' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeRunCursor(cursor)).toEqual({ queuedAt: '2025-03-01T10:00:00.5+00:00', runId: 'r"1' });
  });

  it.each(['', 'not-a-cursor', Buffer.from('["x","y"]').toString('base64url'), Buffer.from('{"a":1}').toString('base64url')])(
    'refuses %j as a validation failure naming the cursor',
    (text) => {
      expect(() => decodeRunCursor(text)).toThrow(
        expect.objectContaining({ code: 'validation_failed', issues: [expect.objectContaining({ field: 'cursor' })] }),
      );
    },
  );
});
