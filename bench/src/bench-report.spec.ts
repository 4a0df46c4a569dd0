import { BenchReport, onlySections } from './bench-report';

describe('BenchReport', () => {
  it("prints each section's rows the moment it is measured, before the next section starts", async () => {
    const printed: string[] = [];
    const report = new BenchReport((line) => printed.push(line));
    await report.section('first', 'the first figure', () => ({ result: 1, rows: [['first figure', '1.0']] }));
    const seenBeforeSecond = [...printed];
    await report.section('second', 'the second figure', async () => ({ result: 2, rows: [['second figure', '2.0']] }));
    expect(seenBeforeSecond).toEqual(['bench: the first figure…', '  first figure  1.0']);
    expect(printed.slice(2)).toEqual(['bench: the second figure…', '  second figure  2.0']);
    expect(report.results).toEqual({ first: 1, second: 2 });
    expect(report.anyFailed).toBe(false);
  });

  it('keeps the figures measured before a section that fails, and goes on to the next', async () => {
    const printed: string[] = [];
    const report = new BenchReport((line) => printed.push(line));
    await report.section('before', 'before', () => ({ result: 'a', rows: [['before', 'a']] }));
    const failed = await report.section('broken', 'a broken figure', async () => {
      throw new Error('the stack went away');
    });
    await report.section('after', 'after', () => ({ result: 'b', rows: [['after', 'b']] }));
    expect(failed).toBeUndefined();
    expect(printed).toContain('bench: FAILED a broken figure: the stack went away');
    expect(report.results).toEqual({ before: 'a', after: 'b' });
    expect(report.anyFailed).toBe(true);
    expect(report.table().split('\n')).toEqual(['before  a', 'after   b', 'FAILED: a broken figure: the stack went away']);
  });

  it('skips a section whose tool is missing with one line, without measuring it', async () => {
    const printed: string[] = [];
    const report = new BenchReport((line) => printed.push(line));
    const measure = jest.fn(() => ({ result: 0, rows: [] }));
    await report.section('scrub', 'the console scrubber in Chromium', measure, () => 'no Chromium at /usr/bin/chromium');
    expect(measure).not.toHaveBeenCalled();
    expect(printed).toEqual(['bench: skipping the console scrubber in Chromium: no Chromium at /usr/bin/chromium']);
    expect(report.table()).toBe('skipped: the console scrubber in Chromium: no Chromium at /usr/bin/chromium');
    expect(report.anyFailed).toBe(false);
  });

  it('runs only the sections asked for with --only', async () => {
    const report = new BenchReport(() => undefined, onlySections(['node', 'run-bench.js', '--only', 'masking']));
    const skippedOne = jest.fn(() => ({ result: 1, rows: [] }));
    await report.section('masking', 'masking', () => ({ result: 'm', rows: [['masking', 'm']] }));
    await report.section('overhead', 'overhead', skippedOne);
    expect(skippedOne).not.toHaveBeenCalled();
    expect(report.results).toEqual({ masking: 'm' });
    expect(onlySections(['node', 'run-bench.js'])).toBeUndefined();
    expect(report.anyFailed).toBe(false);
  });

  it('fails on an --only that names no section, listing the sections there are', async () => {
    const report = new BenchReport(() => undefined, onlySections(['--only', 'scurb']));
    await report.section('scrub', 'scrub', () => ({ result: 1, rows: [] }));
    expect(report.anyFailed).toBe(true);
    expect(report.table()).toBe('FAILED: --only names no section scurb (the sections: scrub)');
  });
});
