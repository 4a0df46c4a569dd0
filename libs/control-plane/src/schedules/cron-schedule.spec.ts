import { CRON_FIELDS, dueFirings, MAX_CATCH_UP, parseCron, upcomingFirings, type CatchUp } from './cron-schedule';

describe('cron schedules', () => {
  it("lists the next firings after now in the schedule's zone, the first one the scheduler would plan next", () => {
    const cron = parseCron('0 9 * * 1-5', 'Europe/Paris', 0);
    const now = new Date('2026-03-06T12:00:00Z'); // a Friday
    const upcoming = upcomingFirings(cron, now, 3).map((t) => t.toISOString());
    expect(upcoming).toEqual(['2026-03-09T08:00:00.000Z', '2026-03-10T08:00:00.000Z', '2026-03-11T08:00:00.000Z']);
    expect(upcoming[0]).toBe(dueFirings(cron, now, now, 'none').next?.toISOString());
  });

  it('refuses what does not parse, an unknown zone, and what fires more often than allowed, naming the field', () => {
    const code = (cron: string, tz = 'UTC', min = 60_000) => {
      try {
        parseCron(cron, tz, min);
        return 'ok';
      } catch (e) {
        return (e as { issues?: Array<{ field: string }> }).issues?.[0].field;
      }
    };
    expect(code('not cron')).toBe('cron');
    expect(code('61 * * * *')).toBe('cron');
    expect(code('* * * * *', 'Mars/Base')).toBe('timezone');
    expect(code('*/10 * * * * *')).toBe('cron');
    expect(code('*/10 * * * * *', 'UTC', 5_000)).toBe('ok');
    expect(code('0 9 * * 1-5', 'Europe/Paris')).toBe('ok');
  });

  it('says what a cron is made of when it has too few or too many fields, as the README does, and takes a year last', () => {
    expect(() => parseCron('* * *', 'UTC', 60_000)).toThrow(`"* * *" has 3 fields: a cron has ${CRON_FIELDS}`);
    expect(CRON_FIELDS).toBe('five fields (minute hour day-of-month month day-of-week), six with seconds first, or seven with a year last');
    expect(() => parseCron('0 0 9 * * * 2030 1', 'UTC', 60_000)).toThrow('has 8 fields');
    expect(parseCron('0 0 9 * * * 2030', 'UTC', 60_000).nextRun(new Date('2026-01-01T00:00:00Z'))?.toISOString()).toBe(
      '2030-01-01T09:00:00.000Z',
    );
  });

  it('fires at 09:00 in the schedule zone, whatever the server clock zone', () => {
    const cron = parseCron('0 9 * * *', 'America/New_York', 60_000);
    expect(cron.nextRun(new Date('2026-07-01T00:00:00Z'))?.toISOString()).toBe('2026-07-01T13:00:00.000Z');
    expect(cron.nextRun(new Date('2026-12-01T00:00:00Z'))?.toISOString()).toBe('2026-12-01T14:00:00.000Z');
  });

  it('catches up on firings missed while down: none (unless on time), the latest, or each', () => {
    const cron = parseCron('*/10 * * * * *', 'UTC', 1_000);
    const since = new Date('2026-12-01T00:00:00Z');
    const now = new Date('2026-12-01T00:01:05Z');
    expect(dueFirings(cron, since, now, 'all').due.map((d) => d.toISOString().slice(14, 19))).toEqual([
      '00:00',
      '00:10',
      '00:20',
      '00:30',
      '00:40',
      '00:50',
      '01:00',
    ]);
    expect(dueFirings(cron, since, now, 'latest').due.map((d) => d.toISOString())).toEqual(['2026-12-01T00:01:00.000Z']);
    expect(dueFirings(cron, since, now, 'none').due.map((d) => d.toISOString())).toEqual(['2026-12-01T00:01:00.000Z']);
    expect(dueFirings(cron, since, new Date('2026-12-01T00:01:55Z'), 'none').due).toHaveLength(1);
    expect(dueFirings(cron, since, now, 'all').next?.toISOString()).toBe('2026-12-01T00:01:10.000Z');
  });

  describe('the firing plan of each catch-up policy', () => {
    const cron = parseCron('*/10 * * * * *', 'UTC', 1_000);
    const since = new Date('2026-12-01T00:00:00Z');
    const times = (now: string, catchUp: CatchUp) =>
      dueFirings(cron, since, new Date(now), catchUp).due.map((d) => d.toISOString().slice(14, 19));

    it.each<[string, string, CatchUp, string[]]>([
      ['before the first time', '2026-11-30T23:59:59Z', 'none', []],
      ['before the first time', '2026-11-30T23:59:59Z', 'latest', []],
      ['before the first time', '2026-11-30T23:59:59Z', 'all', []],
      ['on time', '2026-12-01T00:00:01Z', 'none', ['00:00']],
      ['on time', '2026-12-01T00:00:01Z', 'latest', ['00:00']],
      ['on time', '2026-12-01T00:00:01Z', 'all', ['00:00']],
      ['three missed, the last on time', '2026-12-01T00:00:25Z', 'none', ['00:20']],
      ['three missed, the last on time', '2026-12-01T00:00:25Z', 'latest', ['00:20']],
      ['three missed, the last on time', '2026-12-01T00:00:25Z', 'all', ['00:00', '00:10', '00:20']],
      ['exactly at a time', '2026-12-01T00:00:20Z', 'all', ['00:00', '00:10', '00:20']],
    ])('%s (%s), catch-up %s', (_, now, catchUp, due) => {
      expect(times(now, catchUp)).toEqual(due);
    });

    it('makes none of a firing that is over 30 s late under none, and the latest under latest', () => {
      const slow = parseCron('0 * * * *', 'UTC', 1_000);
      const now = new Date('2026-12-01T00:00:31Z');
      expect(dueFirings(slow, since, now, 'none').due).toEqual([]);
      expect(dueFirings(slow, since, now, 'latest').due).toEqual([since]);
    });

    it(`keeps at most the last ${MAX_CATCH_UP} firings under all`, () => {
      const due = dueFirings(cron, since, new Date('2026-12-02T00:00:00Z'), 'all').due;
      expect(due).toHaveLength(MAX_CATCH_UP);
      expect(due.at(-1)?.toISOString()).toBe('2026-12-02T00:00:00.000Z');
    });
  });
});
