import net from 'node:net';
import { readRunLog } from '@spindle/bus';
import { eventually, startStack, type Stack } from '@spindle/testing';

interface Problem {
  status: number;
  code: string;
  detail: string;
  errors?: Array<{ field: string; node?: string; message: string }>;
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Problem;
}

/**
 * Sends bytes as they are (no client to tidy them up) and reads the answer until the server
 * closes the connection: for requests Node's HTTP parser or Fastify's router refuse.
 */
function rawHttp(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n\r\n')) as Problem });
    });
  });
}

/**
 * Sends a request on a connection the client asks to close: its headers and half its body, then,
 * once the answer has come or half a second has passed, the rest. What the client sees: the
 * status, and the socket error if the server reset the connection while it was still writing.
 */
function sendBodyInTwoHalves(port: number, head: string, body: string): Promise<{ status: number; error?: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const half = Math.floor(body.length / 2);
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`${head}Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`);
      const sendRest = () => {
        clearTimeout(timer);
        if (!socket.writableEnded && !socket.destroyed) socket.end(body.slice(half));
      };
      const timer = setTimeout(sendRest, 500);
      socket.once('data', sendRest);
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => resolve({ status: Number(Buffer.concat(chunks).toString('latin1').split(' ')[1]), error }));
  });
}

/** A JSON body whose `input` nests arrays `levels` deep (the body's own object is one level more). */
const deepInput = (levels: number) => `{"input":${'['.repeat(levels)}${']'.repeat(levels)}}`;

/** Bad input is refused with problem+json before anything is stored, queued or streamed. */
describe('refusals', () => {
  let stack: Stack;
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${stack.gatewayUrl}${path}`, {
      ...init,
      headers: { ...stack.auth, ...(init.headers as Record<string, string>) },
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: (text ? JSON.parse(text) : undefined) as Problem };
  };
  const json = (method: string, body: unknown, headers: Record<string, string> = {}) => ({
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

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
      [
        {
          kind: 'graph',
          nodes: [
            { id: 'a', type: 'set', values: { x: 1 } },
            { id: 'a', type: 'set', values: { y: 1 } },
          ],
        },
        'nodes[1].id',
        'a',
      ],
      [{ kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }], edges: [{ from: 'a', to: 'ghost' }] }, 'edges[0].to', 'ghost'],
      [
        {
          kind: 'graph',
          nodes: [
            { id: 'a', type: 'set', values: { x: 1 } },
            { id: 'b', type: 'set', values: { y: 1 } },
          ],
        },
        'nodes[1]',
        'b',
      ],
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

  it('refuses attachments for a model that takes no files with 422 attachment_not_supported, naming model and field', async () => {
    const definition = {
      kind: 'graph',
      nodes: [{ id: 'look', type: 'llm', model: 'openai:gpt-3.5-turbo', prompt: 'What is this?', attachments: 'input.files' }],
    };
    const res = await call('/v1/workflows/blind', json('PUT', definition));
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 422, code: 'attachment_not_supported' });
    expect(res.body.errors).toContainEqual(
      expect.objectContaining({ field: 'nodes[0].attachments', node: 'look', message: expect.stringContaining('openai:gpt-3.5-turbo') }),
    );
    expect((await call('/v1/workflows/blind')).status).toBe(404);
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
      [
        call('/v1/workflows/ok/runs', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' }),
        415,
        'unsupported_media_type',
      ],
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

  it('refuses JavaScript prototype keys as names of workflows, agents, nodes, state keys and subgraphs', async () => {
    const agent = { model: 'offline:echo', instructions: 'help' };
    for (const name of ['constructor', 'prototype']) {
      const res = await call(`/v1/workflows/${name}`, json('PUT', { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] }));
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'validation_failed' });
      expect(res.body.errors).toContainEqual(expect.objectContaining({ field: 'name', message: expect.stringContaining('reserved') }));
      expect((await call(`/v1/workflows/${name}`)).status).toBe(404);
    }
    for (const name of ['__proto__', 'toString', 'hasOwnProperty']) {
      const res = await call(`/v1/agents/${name}`, json('PUT', agent));
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'validation_failed' });
    }
    const definitions: Array<[unknown, string]> = [
      [{ kind: 'graph', nodes: [{ id: 'sub', type: 'subgraph', workflow: 'constructor' }] }, 'nodes[0].workflow'],
      [
        { kind: 'graph', nodes: [{ id: 'ask', type: 'llm', model: 'offline:echo', prompt: 'hi', output_key: '__proto__' }] },
        'nodes[0].output_key',
      ],
      [{ kind: 'graph', nodes: [{ id: 'toString', type: 'set', values: { x: 1 } }] }, 'nodes[0].id'],
      [{ kind: 'handoff', agents: [{ name: 'toString', ...agent }] }, 'agents[0].name'],
    ];
    for (const [definition, field] of definitions) {
      const res = await call('/v1/workflows/reserved', json('PUT', definition));
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'invalid_definition' });
      expect(res.body.errors).toContainEqual(expect.objectContaining({ field, message: expect.stringContaining('reserved') }));
    }
    expect((await call('/v1/workflows/reserved')).status).toBe(404);
  });

  it('refuses run parameters that do not fit the workflow schema, and fills defaults for those that do', async () => {
    const schema = {
      type: 'object',
      properties: { limit: { type: 'integer', minimum: 1, default: 10 }, region: { enum: ['eu', 'us'] } },
      required: ['region'],
      additionalProperties: false,
    };
    expect(
      (
        await call(
          '/v1/workflows/param',
          json('PUT', { kind: 'graph', parameters: schema, nodes: [{ id: 'a', type: 'set', values: { r: '{{parameters.region}}' } }] }),
        )
      ).status,
    ).toBe(201);
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

    const broken = await call(
      '/v1/workflows/param2',
      json('PUT', { kind: 'graph', parameters: { type: 'nonsense' }, nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] }),
    );
    expect(broken.body).toMatchObject({ code: 'invalid_definition', errors: [expect.objectContaining({ field: 'parameters' })] });
  });

  it('refuses a malformed Last-Event-ID before opening a stream', async () => {
    const started = await call('/v1/workflows/ok/runs', json('POST', {}));
    expect(started.status).toBe(202);
    const runId = (started.body as unknown as { runId: string }).runId;
    for (const bad of ['abc', '-1', '1.5', '9'.repeat(20), '1e3', '0x10', '01']) {
      const res = await fetch(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
        headers: { accept: 'text/event-stream', 'last-event-id': bad, ...stack.auth },
      });
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
    while (reasons.length < 9) {
      const msg = await dlq.next({ expires: 10_000 });
      if (!msg) break;
      reasons.push(`${msg.subject} ${msg.headers?.get('Spindle-Dlq-Reason')}`);
    }
    // The recorder, checkpoint and approval services and the dispatcher's projection each dead-letter both bad
    // events; the runner the bad command.
    expect(reasons.filter((r) => r.includes('dlq.trace-recorder'))).toHaveLength(2);
    expect(reasons.filter((r) => r.includes('dlq.admission'))).toHaveLength(2);
    expect(reasons.filter((r) => r.includes('dlq.runner'))).toHaveLength(1);
    expect(reasons.filter((r) => r.includes('dlq.checkpoint') || r.includes('dlq.approval'))).toHaveLength(4);
    // One decoder for every reader, one wording.
    expect(reasons.join('\n')).toMatch(/invalid JSON/);

    const started = await call('/v1/workflows/ok/runs', json('POST', { input: 'after the garbage' }));
    const runId = (started.body as unknown as { runId: string }).runId;
    const trace = await call(`/v1/runs/${runId}/trace`);
    expect(trace.status).toBe(200);
    const { events } = await readRunLog(stack.bus, runId);
    expect(events.length).toBeGreaterThan(0);
    for (const p of stack.processes) expect(p.child.exitCode).toBeNull();
  });
  describe('hostile input', () => {
    const expectProblem = (res: { status: number; type: string; body: Problem }, status: number, code: string, what: string) =>
      expect({ what, status: res.status, json: res.type.startsWith('application/problem+json'), code: res.body?.code }).toEqual({
        what,
        status,
        json: true,
        code,
      });
    const queuedCommands = async () => (await stack.bus.jsm.streams.info(stack.bus.names.commandsStream)).state.last_seq;
    const workflowNames = async () =>
      ((await call('/v1/workflows')).body as unknown as { workflows: Array<{ name: string }> }).workflows.map((w) => w.name).sort();
    const port = () => Number(new URL(stack.gatewayUrl).port);

    it("refuses impossible path ids at the edge: the route's not-found for a lookup, validation_failed for a new name", async () => {
      // A run that exists (of the caller's tenant), so a body is checked: the run is looked at first.
      const started = await call('/v1/workflows/ok/runs', json('POST', {}));
      const real = (started.body as unknown as { runId: string }).runId;
      const [commandsBefore, namesBefore] = [await queuedCommands(), await workflowNames()];
      const cases: Array<[string, RequestInit, number, string]> = [
        ['/v1/workflows/%00', {}, 404, 'workflow_not_found'],
        ['/v1/workflows/%00/versions', {}, 404, 'workflow_not_found'],
        ['/v1/workflows/%00/graph', {}, 404, 'workflow_not_found'],
        ['/v1/workflows/%00', { method: 'DELETE', headers: { 'content-type': 'application/json' } }, 404, 'workflow_not_found'],
        ['/v1/workflows/%00/runs', json('POST', {}), 404, 'workflow_not_found'],
        ['/v1/agents/%00', {}, 404, 'not_found'],
        ['/v1/agents/%00', { method: 'DELETE', headers: { 'content-type': 'application/json' } }, 404, 'not_found'],
        ['/v1/runs/%00', {}, 404, 'run_not_found'],
        ['/v1/runs/%00/trace', {}, 404, 'run_not_found'],
        ['/v1/runs/%00/events', {}, 404, 'run_not_found'],
        ['/v1/runs/%00/checkpoints', {}, 404, 'run_not_found'],
        ['/v1/runs/%00/requests', {}, 404, 'run_not_found'],
        ['/v1/runs/%00/cancel', json('POST', {}), 404, 'run_not_found'],
        ['/v1/runs/%00/fork', json('POST', {}), 404, 'run_not_found'],
        [`/v1/runs/${'a'.repeat(65)}`, {}, 404, 'run_not_found'],
        // The run is checked first (it is the caller's tenant's or nothing): no such run.
        ['/v1/runs/01NOSUCHRUN/requests/%00/respond', json('POST', { approved: true }), 404, 'run_not_found'],
        [
          '/v1/workflows/%00',
          json('PUT', { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] }),
          400,
          'validation_failed',
        ],
        [
          '/v1/workflows/Upper',
          json('PUT', { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] }),
          400,
          'validation_failed',
        ],
        ['/v1/agents/%00', json('PUT', { model: 'offline:echo' }), 400, 'validation_failed'],
        // Ids inside a body or a query are fields: validation_failed naming them.
        [`/v1/runs/${real}/fork`, json('POST', { checkpointId: 'cp-1\u0000' }), 400, 'validation_failed'],
        ['/v1/runs?workflow=%00', {}, 400, 'validation_failed'],
        [
          `/v1/runs?cursor=${Buffer.from(JSON.stringify(['2026-01-01 00:00:00+00', 'x\u0000'])).toString('base64url')}`,
          {},
          400,
          'validation_failed',
        ],
        [
          `/v1/requests?cursor=${Buffer.from(JSON.stringify(['2026-01-01\u0000', 'req_1'])).toString('base64url')}`,
          {},
          400,
          'validation_failed',
        ],
        // What the catalog stores must fit Postgres jsonb, which has no U+0000.
        [
          '/v1/workflows/nul',
          json('PUT', { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 'a\u0000b' } }] }),
          400,
          'validation_failed',
        ],
      ];
      for (const [path, init, status, code] of cases)
        expectProblem(await call(path, init), status, code, `${init.method ?? 'GET'} ${path}`);
      expect((await call('/v1/runs/%00/cancel', json('POST', {}))).body.detail).toContain('"\\u0000"');
      expect((await call('/v1/workflows/%00', json('PUT', {}))).body.errors).toEqual([expect.objectContaining({ field: 'name' })]);
      expect((await call(`/v1/runs/${real}/fork`, json('POST', { checkpointId: '\u0000' }))).body.errors).toEqual([
        expect.objectContaining({ field: 'checkpointId' }),
      ]);
      expect([await queuedCommands(), await workflowNames()]).toEqual([commandsBefore, namesBefore]);
    });

    it('reads seqs, limits and versions as plain decimal integers within their range, in queries, headers and bodies', async () => {
      const commandsBefore = await queuedCommands();
      const started = await call('/v1/workflows/ok/runs', json('POST', {}));
      const runId = (started.body as unknown as { runId: string }).runId;
      const queries: Array<[string, string]> = [
        ['/v1/workflows/ok/graph?version=99999999999', 'query.version'],
        ['/v1/workflows/ok/graph?version=0', 'query.version'],
        ['/v1/workflows/ok/graph?version=1e0', 'query.version'],
        [`/v1/runs/${runId}/events?after=0x10`, 'query.after'],
        [`/v1/runs/${runId}/events?after=1e3`, 'query.after'],
        [`/v1/runs/${runId}/events?after=-1`, 'query.after'],
        [`/v1/runs/${runId}/events?after=9007199254740992`, 'query.after'],
        [`/v1/runs/${runId}/events?after=1&after=2`, 'query.after'],
        ['/v1/runs?limit=1e1', 'query.limit'],
        ['/v1/runs?limit=201', 'query.limit'],
        ['/v1/requests?limit=0x10', 'query.limit'],
      ];
      for (const [path, field] of queries) {
        const res = await call(path);
        expectProblem(res, 400, 'validation_failed', path);
        expect(res.body.errors?.map((e) => e.field)).toEqual([field]);
      }
      // An array element is named as the Problem contract documents it (`webhooks[1]`, not `webhooks.1`).
      const element = await call('/v1/workflows/ok/runs', json('POST', { webhooks: ['wh_01JN0000000000000000000000', 'not-an-id'] }));
      expectProblem(element, 400, 'validation_failed', 'webhooks[1]');
      expect(element.body.errors?.map((e) => e.field)).toEqual(['webhooks[1]']);
      for (const bad of ['1e3', '0x10']) {
        const res = await fetch(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
          headers: { accept: 'text/event-stream', 'last-event-id': bad, ...stack.auth },
        });
        expect({ status: res.status, code: ((await res.json()) as Problem).code }).toEqual({ status: 400, code: 'invalid_last_event_id' });
      }
      const tooBig = await call('/v1/workflows/ok/runs', json('POST', { version: 99_999_999_999 }));
      expectProblem(tooBig, 400, 'validation_failed', 'body version');
      expect(tooBig.body.errors?.map((e) => e.field)).toEqual(['version']);
      expectProblem(
        await call(`/v1/runs/${runId}/requests/req_1/respond`, json('POST', { approved: true, definitionVersion: 2 ** 31 })),
        400,
        'validation_failed',
        'definitionVersion',
      );
      // Only the run this test started was queued; the plain spellings still work.
      expect(await queuedCommands()).toBe(commandsBefore + 1);
      expect((await call(`/v1/runs/${runId}/events?after=0`)).status).toBe(200);
      expect((await call('/v1/workflows/ok/graph?version=1')).status).toBe(200);
    });

    it('refuses a body nested deeper than the limit before parsing it, and takes one at the limit', async () => {
      const commandsBefore = await queuedCommands();
      const namesBefore = await workflowNames();
      for (const levels of [64, 5_000, 8_000]) {
        const res = await call('/v1/workflows/ok/runs', json('POST', deepInput(levels)));
        expectProblem(res, 400, 'nesting_too_deep', `input ${levels} deep`);
        expect(res.body.detail).toContain('64 levels');
      }
      const deepDefinition = `{"kind":"graph","nodes":[{"id":"a","type":"set","values":{"x":${'['.repeat(5_000)}${']'.repeat(5_000)}}}]}`;
      expectProblem(await call('/v1/workflows/deep', json('PUT', deepDefinition)), 400, 'nesting_too_deep', 'definition');
      expect([await queuedCommands(), await workflowNames()]).toEqual([commandsBefore, namesBefore]);

      // 63 levels of input inside the body's object: exactly 64, accepted and run to the end.
      const atLimit = await call('/v1/workflows/ok/runs', json('POST', deepInput(63)));
      expect(atLimit.status).toBe(202);
      const runId = (atLimit.body as unknown as { runId: string }).runId;
      await eventually(async () => expect((await readRunLog(stack.bus, runId)).events.at(-1)?.type).toBe('run.completed'));
    });

    it('answers a refusal of an unread body even to a client still writing it, instead of resetting the connection', async () => {
      const body = JSON.stringify({ input: 'x'.repeat(1_000_000) });
      const auth = `Authorization: ${stack.auth.authorization}\r\n`;
      const request = (line: string, headers = '') => `${line} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${headers}`;
      const cases: Array<[string, string, string, number]> = [
        ['no credentials', request('POST /v1/workflows/ok/runs'), body, 401],
        ['no such route', request('PUT /v1/no-such-route', auth), body, 404],
        ['bad percent-encoding', request('PUT /v1/runs/x/requests/%C0%AF/respond', auth), body, 400],
        ['a body past the limit', request('POST /v1/workflows/ok/runs', auth), body + ' '.repeat(100_000), 413],
        ['a body on a GET', request('GET /v1/openapi.json', auth), body, 200],
      ];
      for (const [what, head, payload, status] of cases)
        expect({ what, ...(await sendBodyInTwoHalves(port(), head, payload)) }).toEqual({ what, status, error: undefined });
    });

    it('answers what Node and Fastify refuse before routing as problem+json with a Spindle code', async () => {
      const commandsBefore = await queuedCommands();
      const post = (headers: string) =>
        `POST /v1/workflows/ok/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${headers}\r\n{}`;
      const raw: Array<[string, string, number, string]> = [
        ['bad percent-encoding', 'GET /v1/runs/%ZZ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', 400, 'invalid_request'],
        ['Content-Length not a number', post('Content-Length: abc\r\n'), 400, 'invalid_request'],
        ['two different Content-Lengths', post('Content-Length: 2\r\nContent-Length: 3\r\n'), 400, 'invalid_request'],
        ['negative Content-Length', post('Content-Length: -2\r\n'), 400, 'invalid_request'],
        [
          'headers past the limit',
          `GET /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`,
          431,
          'headers_too_large',
        ],
        ['a header name with a space', 'GET /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: 1\r\n\r\n', 400, 'invalid_request'],
      ];
      for (const [what, request, status, code] of raw) {
        const res = await rawHttp(port(), request);
        expect({ what, status: res.status, type: res.headers['content-type'], code: res.body.code, bodyStatus: res.body.status }).toEqual({
          what,
          status,
          type: expect.stringContaining('application/problem+json'),
          code,
          bodyStatus: status,
        });
      }
      // Node's parser errors end the connection: the bytes after them cannot be trusted.
      expect((await rawHttp(port(), post('Content-Length: abc\r\n'))).headers.connection).toBe('close');

      expectProblem(await call(`/v1/runs/${'a'.repeat(101)}`), 414, 'uri_too_long', 'path segment of 101');
      expectProblem(await call(`/v1/workflows/${'a'.repeat(101)}/runs`, json('POST', {})), 414, 'uri_too_long', 'name of 101');
      expectProblem(await call('/assets/no-such-file.js'), 404, 'not_found', 'console asset');
      // `%2F` keeps the client from resolving the dots itself; the router decodes them into the file name.
      const outside = await call('/assets/..%2F..%2F..%2Fpackage.json');
      expectProblem(outside, 404, 'not_found', 'console asset outside the build');
      expect(outside.body.detail).toContain('no console file');
      expectProblem(
        await call('/v1/workflows/ok', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' }),
        404,
        'not_found',
        'unknown method',
      );
      expect(await queuedCommands()).toBe(commandsBefore);
    });
  });

  describe('cross-origin requests', () => {
    const ALLOWED = 'http://app.example';
    let corsGateway: string;
    let waitingRun: string;
    const queuedCommands = async () => (await stack.bus.jsm.streams.info(stack.bus.names.commandsStream)).state.last_seq;
    const log = async (runId: string) => (await readRunLog(stack.bus, runId)).events;

    beforeAll(async () => {
      const gateway = await stack.startService('gateway', { SPINDLE_CORS_ORIGINS: `${ALLOWED},http://localhost:5173` });
      corsGateway = `http://127.0.0.1:${gateway.port}`;
      const saved = await call(
        '/v1/workflows/asks',
        json('PUT', { kind: 'graph', nodes: [{ id: 'ask', type: 'human', prompt: 'go on?', form: 'boolean' }] }),
      );
      expect(saved.status).toBe(201);
      waitingRun = ((await call('/v1/workflows/asks/runs', json('POST', {}))).body as unknown as { runId: string }).runId;
      await eventually(async () => expect((await log(waitingRun)).at(-1)?.type).toBe('run.awaiting'), 200);
    });

    it('refuses state changes from pages on other origins, and any without application/json, before a handler runs', async () => {
      const commandsBefore = await queuedCommands();
      const refused: Array<[string, string, RequestInit, number, string]> = [
        [
          'a start from another origin',
          '/v1/workflows/ok/runs',
          json('POST', {}, { origin: 'http://evil.example' }),
          403,
          'cross_origin_refused',
        ],
        [
          'a start marked cross-site',
          '/v1/workflows/ok/runs',
          json('POST', {}, { 'sec-fetch-site': 'cross-site' }),
          403,
          'cross_origin_refused',
        ],
        [
          'a start marked same-site',
          '/v1/workflows/ok/runs',
          json('POST', {}, { 'sec-fetch-site': 'same-site' }),
          403,
          'cross_origin_refused',
        ],
        ['a start from a sandboxed page', '/v1/workflows/ok/runs', json('POST', {}, { origin: 'null' }), 403, 'cross_origin_refused'],
        [
          'a simple text/plain cancel from another origin',
          `/v1/runs/${waitingRun}/cancel`,
          { method: 'POST', headers: { origin: 'http://evil.example' }, body: '{}' },
          403,
          'cross_origin_refused',
        ],
        [
          'a delete from another origin',
          '/v1/workflows/ok',
          { method: 'DELETE', headers: { origin: 'http://evil.example', 'content-type': 'application/json' } },
          403,
          'cross_origin_refused',
        ],
        ['a bodyless cancel without a content type', `/v1/runs/${waitingRun}/cancel`, { method: 'POST' }, 415, 'unsupported_media_type'],
        ['a cancel sent as text/plain', `/v1/runs/${waitingRun}/cancel`, { method: 'POST', body: '{}' }, 415, 'unsupported_media_type'],
        [
          'a form post',
          '/v1/workflows/ok/runs',
          { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'input=x' },
          415,
          'unsupported_media_type',
        ],
        ['a delete without a content type', '/v1/workflows/ok', { method: 'DELETE' }, 415, 'unsupported_media_type'],
      ];
      for (const [what, path, init, status, code] of refused) {
        const res = await call(path, init);
        expect({ what, status: res.status, type: res.type, code: res.body.code }).toEqual({
          what,
          status,
          type: expect.stringContaining('application/problem+json'),
          code,
        });
      }
      // Nothing was queued, canceled or deleted.
      expect(await queuedCommands()).toBe(commandsBefore);
      expect((await log(waitingRun)).at(-1)?.type).toBe('run.awaiting');
      expect((await call('/v1/workflows/ok')).status).toBe(200);

      // The console's own page (same origin, as a browser marks it) and clients that are not browsers go on.
      const own = await call('/v1/workflows/ok/runs', json('POST', {}, { origin: stack.gatewayUrl, 'sec-fetch-site': 'same-origin' }));
      expect(own.status).toBe(202);
      expect((await call('/v1/workflows/ok/runs', json('POST', {}))).status).toBe(202);
      const canceled = await call(`/v1/runs/${waitingRun}/cancel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: stack.gatewayUrl },
      });
      expect(canceled.status).toBe(200);
      expect((await log(waitingRun)).at(-1)?.type).toBe('run.canceled');
    });

    it('answers preflights and marks responses readable for allow-listed origins only', async () => {
      const preflight = (origin: string) =>
        fetch(`${corsGateway}/v1/workflows/ok/runs`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, idempotency-key' },
        });
      const allowed = await preflight(ALLOWED);
      expect(allowed.status).toBe(204);
      expect(Object.fromEntries([...allowed.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'))).toEqual({
        'access-control-allow-origin': ALLOWED,
        'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE',
        'access-control-allow-headers': 'content-type, idempotency-key, last-event-id, authorization, traceparent',
        'access-control-max-age': '600',
        vary: 'Origin',
      });
      const other = await preflight('http://evil.example');
      expect(other.status).toBe(403);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      expect(((await other.json()) as Problem).code).toBe('cross_origin_refused');

      // An allowed page may start a run and read the answer, its Location and the stream.
      const commandsBefore = await queuedCommands();
      const started = await fetch(`${corsGateway}/v1/workflows/ok/runs`, {
        method: 'POST',
        headers: { origin: ALLOWED, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json', ...stack.auth },
        body: '{}',
      });
      expect(started.status).toBe(202);
      expect(started.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(started.headers.get('access-control-expose-headers')).toBe('Location, Idempotent-Replayed, WWW-Authenticate, Retry-After');
      expect(started.headers.get('vary')).toBe('Origin');
      expect(await queuedCommands()).toBe(commandsBefore + 1);
      const { runId } = (await started.json()) as { runId: string };
      const stream = await fetch(`${corsGateway}/v1/runs/${runId}/events`, {
        headers: { origin: ALLOWED, accept: 'text/event-stream', ...stack.auth },
      });
      expect(stream.headers.get('content-type')).toContain('text/event-stream');
      expect(stream.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      await stream.body?.cancel();
      const missing = await fetch(`${corsGateway}/v1/runs/01NOSUCHRUN`, { headers: { origin: ALLOWED, ...stack.auth } });
      expect({ status: missing.status, allow: missing.headers.get('access-control-allow-origin') }).toEqual({
        status: 404,
        allow: ALLOWED,
      });

      // Any other page may send a read (browsers do), but gets no CORS header, so it cannot read the answer.
      const read = await fetch(`${corsGateway}/v1/runs/${runId}`, { headers: { origin: 'http://evil.example', ...stack.auth } });
      expect(read.status).toBe(200);
      expect(read.headers.get('access-control-allow-origin')).toBeNull();
      expect(
        (await fetch(`${stack.gatewayUrl}/v1/runs/${runId}`, { headers: { origin: ALLOWED, ...stack.auth } })).headers.get(
          'access-control-allow-origin',
        ),
      ).toBeNull();
    });
  });
});
