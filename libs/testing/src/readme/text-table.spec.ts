import { tableMismatches } from './text-table';

const shown = [
  'kind   node   path        status      ms  output (the state delta)',
  'run    -      root        completed  141  {"input": {...}}',
  'node   greet  root/greet  completed    3  {"greeting": "Hello Ada"}',
].join('\n');

describe('tables', () => {
  it('match cell by cell whatever the padding, any whole number in the ms column', () => {
    const real = [
      'kind  node   path        status       ms  output (the state delta)',
      'run   -      root        completed  2015  {"input": {...}}',
      'node  greet  root/greet  completed   133  {"greeting": "Hello Ada"}',
      '',
    ].join('\n');
    expect(tableMismatches(shown, real)).toEqual([]);
  });

  it('say which row and column differ', () => {
    const real = [
      'kind  node   path        status  ms  output (the state delta)',
      'run   -      root        failed  1.5  {"input": {...}}',
      'node  greet  root/greet  failed  2  {"greeting": "Hello Bob"}',
      'node  count  root/count  failed  2  {}',
    ].join('\n');
    expect(tableMismatches(shown, real)).toEqual([
      'expected 2 rows, got 3',
      'row 1, status: expected completed, got failed',
      'row 1, ms: expected a whole number, got 1.5',
      'row 2, status: expected completed, got failed',
      'row 2, output (the state delta): expected {"greeting": "Hello Ada"}, got {"greeting": "Hello Bob"}',
    ]);
    expect(tableMismatches(shown, 'kind  node')).toEqual([
      'header: expected kind | node | path | status | ms | output (the state delta), got kind | node',
    ]);
  });

  it('take any whole number in every duration column (wall ms, working ms), and nothing else there', () => {
    const twoClocks = ['kind  status     wall ms  working ms', 'run   completed      141         141'].join('\n');
    expect(tableMismatches(twoClocks, 'kind  status  wall ms  working ms\nrun  completed  1820  95')).toEqual([]);
    expect(tableMismatches(twoClocks, 'kind  status  wall ms  working ms\nrun  completed  1820  -')).toEqual([
      'row 1, working ms: expected a whole number, got -',
    ]);
  });
});
