import { readRunLog } from '@spindle/bus';
import { startStack, type Stack } from '@spindle/testing';

interface Problem {
  status: number;
  code: string;
  detail: string;
  errors?: Array<{ field: string; node?: string; message: string }>;
}

/** Bad input is refused with problem+json before anything is stored, queued or streamed. */
describe('refusals', () => {
  let stack: Stack;
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${stack.gatewayUrl}${path}`, init);
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: (text ? JSON.parse(text) : undefined) as Problem };
  };
  const json = (method: string, body: unknown, headers: Record<string, string> = {}) => ({ method, headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  beforeAll(async () => {
    stack = await startStack();
    const saved = await call('/v1/workflows/ok', json('PUT', { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] }));
    expect(saved.status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses definitions that fail validation, naming node and field, and stores nothing', async () => {
    const cases: Array<[unknown, string, string | undefined]> = [
      [{ kind: 'graph', nodes: [{ id: 'a', type: 'teleport' }] }, 'nodes[0].type', 'a'],
      [{ kind: 'graph', nodes: [{ id: 'a', type: 'llm', model: 'offline:echo' }] }, 'nodes[0].prompt', 'a'],
      [{ kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }, { id: 'a', type: 'set', values: { y: 1 } }] }, 'nodes[1].id', 'a'],
      [{ kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }], edges: [{ from: 'a', to: 'ghost' }] }, 'edges[0].to', 'ghost'],
      [{ kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }, { id: 'b', type: 'set', values: { y: 1 } }] }, 'nodes[1]', 'b'],
    ];
    for (const [definition, field, node] of cases) {
      const res = await call('/v1/workflows/broken', json('PUT', definition));
      expect(res.status).toBe(400);
      expect(res.type).toContain('application/problem+json');
      expect(res.body.code).toBe('invalid_definition');
      expect(res.body.errors).toContainEqual(expect.objectContaining({ field, ...(node ? { node } : {}) }));
    }
    expect((await call('/v1/workflows/broken')).status).toBe(404);
  });

  it('answers bad requests with the right status and code, queuing no run', async () => {
    const before = await stack.bus.jsm.streams.info(stack.bus.names.commandsStream);
    const refusals: Array<[Promise<{ status: number; body: Problem }>, number, string]> = [
      [call('/v1/workflows/ok/runs', json('POST', '{"input": ')), 400, 'invalid_json'],
      [call('/v1/workflows/ok/runs', json('POST', { input: 1, bogus: true })), 400, 'validation_failed'],
      [call('/v1/workflows/ok/runs', json('POST', { state: 'not an object' })), 400, 'validation_failed'],
      [call('/v1/workflows/missing/runs', json('POST', {})), 404, 'workflow_not_found'],
      [call('/v1/workflows/ok/runs', json('POST', { version: 9 })), 404, 'version_not_found'],
      [call('/v1/workflows/ok/runs', json('POST', { input: 'x'.repeat(1_100_000) })), 413, 'payload_too_large'],
      [call('/v1/workflows/ok/runs', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' }), 415, 'unsupported_media_type'],
      [call('/v1/runs/01NOSUCHRUN'), 404, 'run_not_found'],
      [call('/v1/runs/01NOSUCHRUN/trace'), 404, 'run_not_found'],
      [call('/v1/runs/bad.id.*/events'), 404, 'run_not_found'],
      [call('/v1/runs?status=sleeping'), 400, 'validation_failed'],
      [call('/v1/runs?limit=0'), 400, 'validation_failed'],
      [call('/v1/nowhere'), 404, 'not_found'],
    ];
    for (const [pending, status, code] of refusals) {
      const res = await pending;
      expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
    }
    const after = await stack.bus.jsm.streams.info(stack.bus.names.commandsStream);
    expect(after.state.last_seq).toBe(before.state.last_seq);
  });

  it('refuses run parameters that do not fit the workflow schema, and fills defaults for those that do', async () => {
    const schema = { type: 'object', properties: { limit: { type: 'integer', minimum: 1, default: 10 }, region: { enum: ['eu', 'us'] } }, required: ['region'], additionalProperties: false };
    expect((await call('/v1/workflows/param', json('PUT', { kind: 'graph', parameters: schema, nodes: [{ id: 'a', type: 'set', values: { r: '{{parameters.region}}' } }] }))).status).toBe(201);
    const before = await stack.bus.jsm.streams.info(stack.bus.names.commandsStream);
    const bad = await call('/v1/workflows/param/runs', json('POST', { parameters: { limit: 0, extra: 1 } }));
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.errors?.map((e) => e.field).sort()).toEqual(['parameters.extra', 'parameters.limit', 'parameters.region']);
    expect((await stack.bus.jsm.streams.info(stack.bus.names.commandsStream)).state.last_seq).toBe(before.state.last_seq);

    const good = await call('/v1/workflows/param/runs', json('POST', { parameters: { region: 'eu' } }));
    expect(good.status).toBe(202);
    const { events } = await readRunLog(stack.bus, (good.body as unknown as { runId: string }).runId);
    expect(events[0].data).toMatchObject({ parameters: { region: 'eu', limit: 10 }, state: { parameters: { region: 'eu', limit: 10 } } });

    const broken = await call('/v1/workflows/param2', json('PUT', { kind: 'graph', parameters: { type: 'nonsense' }, nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] }));
    expect(broken.body).toMatchObject({ code: 'invalid_definition', errors: [expect.objectContaining({ field: 'parameters' })] });
  });

  it('refuses a malformed Last-Event-ID before opening a stream', async () => {
    const started = await call('/v1/workflows/ok/runs', json('POST', {}));
    expect(started.status).toBe(202);
    const runId = (started.body as unknown as { runId: string }).runId;
    for (const bad of ['abc', '-1', '1.5', '9'.repeat(20)]) {
      const res = await fetch(`${stack.gatewayUrl}/v1/runs/${runId}/events`, { headers: { accept: 'text/event-stream', 'last-event-id': bad } });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(((await res.json()) as Problem).code).toBe('invalid_last_event_id');
    }
  });

  it('dead-letters a bad bus message, keeps serving, and still records good runs', async () => {
    const { names } = stack.bus;
    await stack.bus.js.publish(names.eventSubject('garbage-run'), 'this is not json');
    await stack.bus.js.publish(names.eventSubject('garbage-run'), JSON.stringify({ runId: 'garbage-run', seq: 1, type: 'run.exploded' }));
    await stack.bus.js.publish(names.startCommand, JSON.stringify({ type: 'run.start' }));

    const dlq = await stack.bus.js.consumers.get(names.deadLetterStream, { filter_subjects: names.deadLetterSubject('*') });
    const reasons: string[] = [];
    while (reasons.length < 7) {
      const msg = await dlq.next({ expires: 10_000 });
      if (!msg) break;
      reasons.push(`${msg.subject} ${msg.headers?.get('Spindle-Dlq-Reason')}`);
    }
    // The recorder, checkpoint and approval services each dead-letter both bad events; the runner the bad command.
    expect(reasons.filter((r) => r.includes('dlq.trace-recorder'))).toHaveLength(2);
    expect(reasons.filter((r) => r.includes('dlq.runner'))).toHaveLength(1);
    expect(reasons.filter((r) => r.includes('dlq.checkpoint') || r.includes('dlq.approval'))).toHaveLength(4);
    expect(reasons.join('\n')).toMatch(/not JSON/);

    const started = await call('/v1/workflows/ok/runs', json('POST', { input: 'after the garbage' }));
    const runId = (started.body as unknown as { runId: string }).runId;
    const trace = await call(`/v1/runs/${runId}/trace`);
    expect(trace.status).toBe(200);
    const { events } = await readRunLog(stack.bus, runId);
    expect(events.length).toBeGreaterThan(0);
    for (const p of stack.processes) expect(p.child.exitCode).toBeNull();
  });
});
