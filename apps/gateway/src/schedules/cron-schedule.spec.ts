import { dueFirings, parseCron } from './cron-schedule';

describe('cron schedules', () => {
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
});
