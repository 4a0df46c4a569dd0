import { runSummarySchema, runTraceSchema } from '@spindle/contracts';
import { assembleTrace, toRunSummary, type StoredRunRow, type StoredSpanRow } from './assemble-trace';

const runRow: StoredRunRow = {
  run_id: 'r1',
  workflow: 'support',
  workflow_version: 3,
  status: 'completed',
  queued_at: new Date('2025-03-01T10:00:00.000Z'),
  started_at: new Date('2025-03-01T10:00:01.000Z'),
  ended_at: '2025-03-01T12:00:05.250+02:00',
  // bigint columns come back from pg as strings
  input_tokens: '9007199254740',
  output_tokens: '2',
  total_tokens: 9007199254742n,
  cost_usd: 0.0125,
  error: null,
  last_seq: 9,
  root_span_id: 'root',
  forked_from: { runId: 'r0', seq: 4 },
  tenant: 'acme',
  started_by: { kind: 'key', id: 'k1', name: 'ci' },
  canceled_by: null,
};

const span = (span_id: string, start_seq: number | null, extra: Partial<StoredSpanRow> = {}): StoredSpanRow => ({
  span_id,
  parent_span_id: 'root',
  node_id: 'n',
  path: 'root/n',
  kind: 'node',
  node_type: 'set',
  status: 'completed',
  started_at: null,
  ended_at: null,
  duration_ms: null,
  start_seq,
  end_seq: null,
  input: null,
  output: null,
  error: null,
  usage: null,
  model: null,
  iteration: null,
  branch_id: null,
  ...extra,
});

describe('assembleTrace', () => {
  it('gives the run summary of the contract: ISO times, numbers not strings', () => {
    const summary = toRunSummary(runRow, Date.parse('2026-01-01T00:00:00.000Z'));
    expect(summary).toEqual({
      runId: 'r1',
      workflow: { name: 'support', version: 3 },
      status: 'completed',
      queuedAt: '2025-03-01T10:00:00.000Z',
      startedAt: '2025-03-01T10:00:01.000Z',
      endedAt: '2025-03-01T10:00:05.250Z',
      // Wall time from queued; no wait was stored, so working time is the same.
      wallMs: 5250,
      workingMs: 5250,
      usage: { inputTokens: 9007199254740, outputTokens: 2, totalTokens: 9007199254742, costUsd: 0.0125 },
      error: null,
      lastSeq: 9,
      forkedFrom: { runId: 'r0', seq: 4 },
      tenant: 'acme',
      startedBy: { kind: 'key', id: 'k1', name: 'ci' },
      canceledBy: null,
    });
    expect(runSummarySchema.parse(summary)).toEqual(summary);
  });

  it('orders spans by the seq that opened them, then by span id, unopened ones last', () => {
    const trace = assembleTrace(
      runRow,
      [
        span('z', null),
        span('b', 3, { start_seq: '3' as unknown as number, iteration: '1' as unknown as number }),
        span('root', 1, { kind: 'run', parent_span_id: null, node_id: null, node_type: null, path: 'root' }),
        span('a', 3, { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, started_at: new Date('2025-03-01T10:00:03Z') }),
      ],
      Date.parse('2026-01-01T00:00:00.000Z'),
    );
    expect(trace.spans.map((s) => s.spanId)).toEqual(['root', 'a', 'b', 'z']);
    expect(trace.spans[1]).toMatchObject({ startedAt: '2025-03-01T10:00:03.000Z', usage: { totalTokens: 2 } });
    expect(trace.spans[2]).toMatchObject({ startSeq: 3, iteration: 1 });
    expect(runTraceSchema.omit({ scores: true }).parse(trace)).toEqual(trace);
  });
});
