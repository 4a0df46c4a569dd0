import type { RunTrace, Score, TraceSpan } from '@spindle/contracts';
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

  it('lists the run’s scores under the spans: name, value, the run or the span it is about, who gave it, when and why', () => {
    const score = (fields: Partial<Score>): Score => ({
      scoreId: 'sc',
      runId: 'r1',
      spanId: null,
      name: 'helpfulness',
      value: 0.8,
      dataType: 'numeric',
      comment: null,
      by: { kind: 'user', id: 'ana', name: 'Ana' },
      evaluator: null,
      createdAt: '2026-12-01T10:00:00.000Z',
      ...fields,
    });
    const trace = {
      spans: [
        span({ spanId: 'root', kind: 'run', durationMs: 90, workingMs: 90, output: {} }),
        span({ spanId: 'm1', kind: 'model', nodeId: 'reply', path: 'root/reply', durationMs: 51, workingMs: 51, output: {} }),
      ],
      scores: [
        score({ comment: 'clear,\nand \u001b[31mshort' }),
        score({
          spanId: 'm1',
          name: 'right_city',
          value: true,
          dataType: 'boolean',
          comment: 'the output is the expected value, and this comment goes on',
          by: { kind: 'system', id: 'evaluator', name: 'evaluator' },
          evaluator: { name: 'exact_match', version: 'judged v1' },
          createdAt: '2026-12-01T10:00:01.000Z',
        }),
        score({ name: 'tone', value: 'friendly', dataType: 'categorical', by: { kind: 'key', id: 'key_1', name: '' } }),
      ],
    } as unknown as RunTrace;
    expect(traceTable(trace).slice(3)).toEqual([
      '',
      'scores',
      'name         value       on                by                                 at                        comment',
      'helpfulness  0.8         run               user Ana                           2026-12-01T10:00:00.000Z  clear, and [31mshort',
      // The comment cut at 40 characters.
      'right_city   true        model root/reply  evaluator exact_match (judged v1)  2026-12-01T10:00:01.000Z  ' +
        'the output is the expected value, and t…',
      'tone         "friendly"  run               key key_1                          2026-12-01T10:00:00.000Z',
    ]);
  });

  it('prints the spans alone when the run has no scores (or the gateway predates them)', () => {
    const trace = { spans: [span({ kind: 'run', output: {} })], scores: [] } as unknown as RunTrace;
    expect(traceTable(trace)).toHaveLength(2);
    expect(traceTable({ spans: trace.spans } as unknown as RunTrace)).toHaveLength(2);
  });
});
