import { jsonb, jsonText, runRowOf } from './patch-rows.mapper';

describe('jsonb', () => {
  it('keeps absent apart from JSON null', () => {
    expect(jsonb(undefined)).toBeNull();
    expect(jsonb(null)).toBe('null');
    expect(jsonb({ a: [1, 'x'] })).toBe('{"a":[1,"x"]}');
  });

  it('replaces NUL characters, which jsonb refuses, and leaves an escaped backslash before "u0000" alone', () => {
    expect(jsonb({ text: 'a\u0000b\u0000\u0000' })).toBe('{"text":"a\\ufffdb\\ufffd\\ufffd"}');
    expect(JSON.parse(jsonText({ text: '\\u0000 is how you write NUL' }))).toEqual({ text: '\\u0000 is how you write NUL' });
    expect(JSON.parse(jsonText({ text: '\\\u0000' }))).toEqual({ text: '\\\ufffd' });
  });
});

describe('runRowOf', () => {
  const patch = {
    runId: 'r1',
    status: 'running' as const,
    usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
    lastSeq: 4,
    clockEvents: [],
  };

  it('cannot propose a row for a run whose run.queued it has not seen', () => {
    expect(runRowOf(patch, undefined)).toBeUndefined();
  });

  it('repeats the stored identity of a run created earlier, with the patch on top', () => {
    const stored = {
      run_id: 'r1',
      workflow: 'w',
      workflow_version: 2,
      status: 'queued',
      queued_at: new Date(0),
      root_span_id: 'root',
      last_seq: 1,
      tenant: 'acme',
      ended_at: null,
      waited_ms: 0,
      waiting_since: null,
    };
    expect(runRowOf(patch, stored)).toMatchObject({
      run_id: 'r1',
      workflow: 'w',
      workflow_version: 2,
      queued_at: new Date(0),
      root_span_id: 'root',
      tenant: 'acme',
      status: 'running',
      input_tokens: 1,
      last_seq: 4,
      error: null,
    });
    expect(runRowOf({ ...patch, status: undefined }, stored)).toMatchObject({ status: 'queued' });
  });
});
