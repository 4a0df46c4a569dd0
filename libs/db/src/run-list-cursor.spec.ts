import { decodeRunListCursor, encodeRunListCursor } from './run-list-cursor';

describe('run list cursor', () => {
  const byStart = { sort: 'started', order: 'desc' } as const;

  it('round-trips a page end of every sort and is opaque', () => {
    const started = { ...byStart, value: '2025-03-01T10:00:00.123456+00:00', runId: 'run-9' };
    const cost = { sort: 'cost', order: 'asc', value: '0.000125', runId: '01J0000000000000000000000A' } as const;
    for (const cursor of [
      started,
      cost,
      { ...cost, sort: 'duration', value: '-1' } as const,
      { ...cost, sort: 'tokens', value: '4096' } as const,
    ]) {
      const text = encodeRunListCursor(cursor);
      expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeRunListCursor(text, cursor)).toEqual(cursor);
    }
  });

  it('refuses a cursor of another sort or order, naming the one it continues', () => {
    const text = encodeRunListCursor({ sort: 'tokens', order: 'desc', value: '12', runId: 'r1' });
    expect(() => decodeRunListCursor(text, byStart)).toThrow(/sorted by tokens desc/);
    expect(() => decodeRunListCursor(text, { sort: 'tokens', order: 'asc' })).toThrow(/sorted by tokens desc/);
  });

  const forged = (items: unknown) => Buffer.from(JSON.stringify(items)).toString('base64url');
  it.each([
    '',
    'not-a-cursor',
    forged(['2025-03-01T10:00:00Z', 'r1']),
    forged(['runs', 'started', 'desc', 'yesterday', 'r1']),
    forged(['runs', 'started', 'desc', '2025-03-01T10:00:00Z', 'r\u00001']),
    forged(['runs', 'tokens', 'desc', '1; drop table runs', 'r1']),
    forged(['runs', 'name', 'desc', '1', 'r1']),
    forged(['runs', 'started', 'sideways', '2025-03-01T10:00:00Z', 'r1']),
  ])('refuses %j as a validation failure naming the cursor', (text) => {
    expect(() => decodeRunListCursor(text, byStart)).toThrow(
      expect.objectContaining({ code: 'validation_failed', issues: [expect.objectContaining({ field: 'query.cursor' })] }),
    );
  });
});
