import type { RunTrace, TraceSpan } from '@spindle/contracts';
import { traceTable } from './trace-table';

function span(fields: Partial<TraceSpan>): TraceSpan {
  return {
    spanId: 's',
    parentSpanId: null,
    nodeId: null,
    path: 'root',
    kind: 'node',
    nodeType: null,
    status: 'completed',
    startedAt: null,
    endedAt: null,
    durationMs: null,
    workingMs: null,
    input: null,
    output: null,
    error: null,
    usage: null,
    model: null,
    iteration: null,
    branchId: null,
    startSeq: null,
    endSeq: null,
    ...fields,
  };
}

describe('traceTable', () => {
  it('prints the README table: kind, node, path, status, wall and working ms right-aligned, the output cut short', () => {
    const trace = {
      spans: [
        span({
          kind: 'run',
          durationMs: 141,
          workingMs: 141,
          output: { input: { name: 'Ada' }, answer: 'Hello Ada, what a fine day to run a workflow!' },
        }),
        span({ nodeId: 'greet', path: 'root/greet', durationMs: 3, workingMs: 3, output: { greeting: 'Hello Ada' } }),
        span({ nodeId: 'long_enough', path: 'root/long_enough', durationMs: 9, workingMs: 9, output: {} }),
        span({
          nodeId: 'reply',
          path: 'root/reply',
          status: 'failed',
          durationMs: 61,
          workingMs: 61,
          error: { code: 'provider_error', message: 'boom' },
        }),
      ],
    } as unknown as RunTrace;
    expect(traceTable(trace)).toEqual([
      'kind  node         path              status     wall ms  working ms  output (the state delta)',
      'run   -            root              completed      141         141  {"input": {...}, "answer": "Hello Ada, what a fine…',
      'node  greet        root/greet        completed        3           3  {"greeting": "Hello Ada"}',
      'node  long_enough  root/long_enough  completed        9           9  {}',
      'node  reply        root/reply        failed          61          61  provider_error: boom',
    ]);
  });
});
