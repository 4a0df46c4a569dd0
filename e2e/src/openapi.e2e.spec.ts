import { eventually, startStack, type RecordedResponse, type Stack } from '@spindle/testing';

const GREETER = { kind: 'graph', nodes: [{ id: 'greet', type: 'set', values: { greeting: 'Hello {{input.name}}' } }] };

/**
 * `/v1/openapi.json` and the conformance check every e2e suite runs on `stack.stop()`: here,
 * that the check bites. Real responses pass; the same responses altered to break their schema
 * (or answered with a status the operation does not have) are reported.
 */
describe('the OpenAPI document over real traffic', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ namespacePrefix: 'oapi' });
  }, 90_000);
  afterAll(() => stack?.stop());

  const recorded = async (path: string, init?: RequestInit): Promise<RecordedResponse> => {
    const res = await stack.api(path, init);
    return {
      method: init?.method ?? 'GET',
      path,
      status: res.status,
      contentType: res.headers.get('content-type')?.split(';')[0] ?? null,
      body: await res.json(),
    };
  };

  it('is served without credentials, as OpenAPI 3.1 naming every scope the route table has', async () => {
    const res = await fetch(`${stack.gatewayUrl}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { security: unknown[] }>> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/v1/runs/{id}/cancel'].post.security).toEqual([{ apiKey: ['runs:write'] }]);
    expect(doc.paths['/v1/openapi.json'].get.security).toEqual([]);
  });

  it('passes real answers and reports each one altered to break its schema', async () => {
    const checker = stack.openApi;
    if (!checker) throw new Error('the stack has no OpenAPI checker');
    expect((await stack.api('/v1/workflows/oapi-greeter', { method: 'PUT', body: JSON.stringify(GREETER) })).status).toBe(201);
    const started = await recorded('/v1/workflows/oapi-greeter/runs', { method: 'POST', body: JSON.stringify({ input: { name: 'Ada' } }) });
    const runId = (started.body as { runId: string }).runId;
    const run = await eventually(async () => {
      const r = await recorded(`/v1/runs/${runId}`);
      expect((r.body as { status: string }).status).toBe('completed');
      return r;
    });
    const events = await recorded(`/v1/runs/${runId}/events`);
    const missing = await recorded('/v1/runs/01NOSUCHRUN0000000000000000');
    expect(checker.mismatchesOf([started, run, events, missing])).toEqual([]);

    const summary = run.body as Record<string, unknown>;
    const page = events.body as { events: Array<Record<string, unknown>> };
    const altered: RecordedResponse[] = [
      { ...run, body: { ...summary, status: 'sleeping' } },
      { ...events, body: { ...page, events: [{ ...page.events[0], seq: 'one' }] } },
      { ...started, status: 200 },
      { ...missing, body: { ...(missing.body as object), code: 'no_such_code' } },
    ];
    expect(checker.mismatchesOf(altered)).toEqual([
      { operation: 'getRun', status: 200, error: expect.stringContaining('RunSummary: status: ') },
      { operation: 'getRunEvents', status: 200, error: expect.stringContaining('events[0]') },
      { operation: 'startRun', status: 200, error: expect.stringContaining('application/json is not documented') },
      { operation: 'getRun', status: 404, error: expect.stringContaining('Problem: code: ') },
    ]);
  });
});
