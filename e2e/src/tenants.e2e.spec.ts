import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { HumanRequest, RunEvent } from '@spindle/contracts';
import { gatewayRoutes, isApiRoute, ROUTE_ACCESS, routeKey } from '@spindle/gateway';
import { parseApiKey } from '@spindle/identity';
import { eventually, startStack, type Stack } from '@spindle/testing';

/**
 * Tenants, from the route table: a tenant with every scope, its admin included, sends every route
 * and verb at the other tenant's objects (its runs, requests, workflow, agent, key and the tenant
 * itself), over JSON and SSE. Nothing of the other tenant is readable, changeable or listed.
 */

const asks = {
  kind: 'graph',
  nodes: [
    { id: 'ask', type: 'human', prompt: 'go on?', form: 'boolean' },
    { id: 'after', type: 'set', values: { done: true } },
  ],
  edges: [{ from: 'ask', to: 'after' }],
};
const quick = { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] };

/** What each route must answer when tenant acme names tenant default's objects. */
type Outcome = { status: number; code?: string; list?: true };
const NOT_OURS: Record<string, Outcome> = {
  'GET /v1/auth/config': { status: 200 },
  'GET /v1/openapi.json': { status: 200 },
  'GET /v1/me': { status: 200, list: true },
  'GET /v1/workflows': { status: 200, list: true },
  'GET /v1/workflows/:name': { status: 404, code: 'workflow_not_found' },
  'GET /v1/workflows/:name/graph': { status: 404, code: 'workflow_not_found' },
  'GET /v1/workflows/:name/versions': { status: 404, code: 'workflow_not_found' },
  'GET /v1/workflows/:name/versions/:from/diff/:to': { status: 404, code: 'workflow_not_found' },
  'POST /v1/workflows/:name/rollback': { status: 404, code: 'workflow_not_found' },
  // The same name in another tenant is another workflow: acme makes its own.
  'PUT /v1/workflows/:name': { status: 201 },
  'DELETE /v1/workflows/:name': { status: 404, code: 'workflow_not_found' },
  'GET /v1/agents': { status: 200, list: true },
  'GET /v1/agents/:name': { status: 404, code: 'not_found' },
  'GET /v1/agents/:name/versions': { status: 404, code: 'not_found' },
  'GET /v1/agents/:name/versions/:from/diff/:to': { status: 404, code: 'not_found' },
  'POST /v1/agents/:name/rollback': { status: 404, code: 'not_found' },
  'PUT /v1/agents/:name': { status: 201 },
  'DELETE /v1/agents/:name': { status: 404, code: 'not_found' },
  // The runners serve every tenant: acme sees the same functions and tools, and nothing of default's.
  'GET /v1/functions': { status: 200, list: true },
  'GET /v1/tools': { status: 200, list: true },
  'POST /v1/workflows/:name/runs': { status: 404, code: 'workflow_not_found' },
  'GET /v1/runs': { status: 200, list: true },
  // Acme's own figures: none of default's runs, nodes or requests are counted or named.
  'GET /v1/overview': { status: 200 },
  'GET /v1/runs/:id': { status: 404, code: 'run_not_found' },
  'GET /v1/runs/:id/trace': { status: 404, code: 'run_not_found' },
  'GET /v1/runs/:id/lineage': { status: 404, code: 'run_not_found' },
  'GET /v1/runs/:id/events': { status: 404, code: 'run_not_found' },
  // No stream token for another tenant's run.
  'POST /v1/runs/:id/stream-tokens': { status: 404, code: 'run_not_found' },
  // No score on, and no score read of, another tenant's run.
  'GET /v1/runs/:id/scores': { status: 404, code: 'run_not_found' },
  'GET /v1/runs/:id/evaluations': { status: 404, code: 'run_not_found' },
  'POST /v1/runs/:id/scores': { status: 404, code: 'run_not_found' },
  'GET /v1/score-configs': { status: 200, list: true },
  // Acme's own: the same name in another tenant is another config.
  'PUT /v1/score-configs/:name': { status: 201 },
  'DELETE /v1/score-configs/:name': { status: 404, code: 'not_found' },
  'PUT /v1/score-settings': { status: 200 },
  'POST /v1/runs/:id/cancel': { status: 404, code: 'run_not_found' },
  'DELETE /v1/runs/:id': { status: 404, code: 'run_not_found' },
  'GET /v1/runs/:id/checkpoints': { status: 404, code: 'run_not_found' },
  'POST /v1/runs/:id/fork': { status: 404, code: 'run_not_found' },
  'GET /v1/threads': { status: 200, list: true },
  // A thread of acme's own.
  'POST /v1/threads': { status: 201 },
  'GET /v1/threads/:threadId': { status: 404, code: 'thread_not_found' },
  'GET /v1/threads/:threadId/state': { status: 404, code: 'thread_not_found' },
  'POST /v1/threads/:threadId/state': { status: 404, code: 'thread_not_found' },
  'GET /v1/threads/:threadId/runs': { status: 404, code: 'thread_not_found' },
  'POST /v1/threads/:threadId/runs': { status: 404, code: 'thread_not_found' },
  'GET /v1/webhooks': { status: 200, list: true },
  // A subscription of acme's own; one naming default's thread is refused as not found.
  'POST /v1/webhooks': { status: 201 },
  'GET /v1/webhooks/:webhookId': { status: 404, code: 'not_found' },
  'DELETE /v1/webhooks/:webhookId': { status: 404, code: 'not_found' },
  'GET /v1/webhooks/:webhookId/deliveries': { status: 404, code: 'not_found' },
  'GET /v1/schedules': { status: 200, list: true },
  // acme has no workflow of that name: its schedule of it is refused as not found.
  'POST /v1/schedules': { status: 404, code: 'workflow_not_found' },
  'GET /v1/schedules/:scheduleId': { status: 404, code: 'not_found' },
  'GET /v1/schedules/:scheduleId/firings': { status: 404, code: 'not_found' },
  'POST /v1/schedules/:scheduleId/pause': { status: 404, code: 'not_found' },
  'POST /v1/schedules/:scheduleId/resume': { status: 404, code: 'not_found' },
  'POST /v1/schedules/:scheduleId/trigger': { status: 404, code: 'not_found' },
  'DELETE /v1/schedules/:scheduleId': { status: 404, code: 'not_found' },
  // A file of acme's own; default's file is not found on every route.
  'POST /v1/files': { status: 201 },
  'GET /v1/files/:fileId': { status: 404, code: 'file_not_found' },
  'GET /v1/files/:fileId/content': { status: 404, code: 'file_not_found' },
  'DELETE /v1/files/:fileId': { status: 404, code: 'file_not_found' },
  // A knowledge base of acme's own (PUT comes last of its routes); default's base is not found on every route.
  'GET /v1/knowledge-bases': { status: 200, list: true },
  'GET /v1/knowledge-bases/:name': { status: 404, code: 'knowledge_base_not_found' },
  'PUT /v1/knowledge-bases/:name': { status: 201 },
  'DELETE /v1/knowledge-bases/:name': { status: 404, code: 'knowledge_base_not_found' },
  'GET /v1/knowledge-bases/:name/documents': { status: 404, code: 'knowledge_base_not_found' },
  'POST /v1/knowledge-bases/:name/documents': { status: 404, code: 'knowledge_base_not_found' },
  'GET /v1/knowledge-bases/:name/documents/:documentId': { status: 404, code: 'knowledge_base_not_found' },
  'DELETE /v1/knowledge-bases/:name/documents/:documentId': { status: 404, code: 'knowledge_base_not_found' },
  'POST /v1/knowledge-bases/:name/query': { status: 404, code: 'knowledge_base_not_found' },
  'GET /v1/requests': { status: 200, list: true },
  'GET /v1/runs/:id/requests': { status: 404, code: 'run_not_found' },
  'POST /v1/runs/:id/requests/:requestId/respond': { status: 404, code: 'run_not_found' },
  'GET /v1/keys': { status: 200, list: true },
  // A key for the other tenant: no such tenant, as far as acme can tell.
  'POST /v1/keys': { status: 400, code: 'validation_failed' },
  'GET /v1/keys/:keyId': { status: 404, code: 'not_found' },
  'DELETE /v1/keys/:keyId': { status: 404, code: 'not_found' },
  'GET /v1/tenants': { status: 200, list: true },
  'POST /v1/tenants': { status: 403, code: 'forbidden' },
  'GET /v1/tenants/:tenant': { status: 404, code: 'not_found' },
  'PUT /v1/tenants/:tenant/quotas': { status: 403, code: 'forbidden' },
  'GET /v1/audit': { status: 400, code: 'validation_failed' },
  // A tool call of the other tenant's workflow: MCP's own refusal, an unknown tool.
  'POST /v1/mcp': { status: 200, code: 'json-rpc -32602' },
  'GET /v1/mcp': { status: 405, code: 'method_not_allowed' },
  'DELETE /v1/mcp': { status: 405, code: 'method_not_allowed' },
  // The other tenant's workflow is no agent of acme's.
  'GET /v1/a2a/:name/.well-known/agent-card.json': { status: 404, code: 'workflow_not_found' },
  'GET /v1/datasets': { status: 200, list: true },
  // The same name in another tenant is another dataset: acme makes its own.
  'PUT /v1/datasets/:name': { status: 201 },
  'GET /v1/datasets/:name': { status: 404, code: 'dataset_not_found' },
  'DELETE /v1/datasets/:name': { status: 404, code: 'dataset_not_found' },
  'POST /v1/datasets/:name/items': { status: 404, code: 'dataset_not_found' },
  'GET /v1/datasets/:name/items': { status: 404, code: 'dataset_not_found' },
  'DELETE /v1/datasets/:name/items/:itemId': { status: 404, code: 'dataset_not_found' },
  // Acme has no such workflow (nor dataset): nothing of default's is run.
  'POST /v1/experiments': { status: 404, code: 'workflow_not_found' },
  'GET /v1/experiments': { status: 200, list: true },
  'GET /v1/experiments/compare': { status: 404, code: 'not_found' },
  'GET /v1/experiments/:experimentId': { status: 404, code: 'not_found' },
  'GET /v1/experiments/:experimentId/items': { status: 404, code: 'not_found' },
  'POST /v1/experiments/:experimentId/cancel': { status: 404, code: 'not_found' },
  // Acme has no such workflow: nothing of default's is replayed.
  'POST /v1/workflows/:name/replays': { status: 404, code: 'workflow_not_found' },
  'GET /v1/replays': { status: 200, list: true },
  'GET /v1/replays/:replayId': { status: 404, code: 'not_found' },
  'POST /v1/a2a/:name': { status: 404, code: 'workflow_not_found' },
  'POST /v1/ag-ui/:name': { status: 404, code: 'workflow_not_found' },
  'POST /v1/chat/:name': { status: 404, code: 'workflow_not_found' },
  'GET /v1/chat/:name/:chatId/stream': { status: 404, code: 'workflow_not_found' },
};

const BODIES: Record<string, unknown> = {
  'PUT /v1/workflows/:name': quick,
  'PUT /v1/agents/:name': { model: 'offline:echo', instructions: 'help' },
  'POST /v1/workflows/:name/runs': { input: 'x' },
  'POST /v1/workflows/:name/rollback': { version: 1 },
  'POST /v1/agents/:name/rollback': { version: 1 },
  'POST /v1/threads': { metadata: { user: 'acme-user' } },
  'POST /v1/webhooks': { url: 'https://hooks.example/acme' },
  'POST /v1/schedules': { cron: '0 9 * * *', workflow: 'dflt-quick' },
  'POST /v1/schedules/:scheduleId/pause': {},
  'POST /v1/schedules/:scheduleId/resume': {},
  'POST /v1/schedules/:scheduleId/trigger': {},
  'POST /v1/threads/:threadId/runs': { workflow: 'dflt-quick', input: 'x' },
  'POST /v1/threads/:threadId/state': { values: { stolen: true } },
  'POST /v1/runs/:id/cancel': {},
  'POST /v1/runs/:id/scores': { name: 'stolen', value: 0 },
  'PUT /v1/score-configs/:name': { dataType: 'boolean' },
  'PUT /v1/score-settings': { strict: false },
  'PUT /v1/datasets/:name': { description: 'acme’s own' },
  'POST /v1/datasets/:name/items': { items: [{ input: 'stolen' }] },
  'POST /v1/experiments': { dataset: 'dflt-set', workflow: 'dflt-quick' },
  'POST /v1/workflows/:name/replays': { runs: ['01JZZZZZZZZZZZZZZZZZZZZZZZ'] },
  'POST /v1/runs/:id/stream-tokens': {},
  // Sent as application/json: a JSON file of acme's.
  'POST /v1/files': { acme: 'notes' },
  'PUT /v1/knowledge-bases/:name': { embeddingModel: 'offline:hash-64', dimensions: 64 },
  'POST /v1/knowledge-bases/:name/documents': { source: 'stolen.md', text: 'acme writes into the other base' },
  'POST /v1/knowledge-bases/:name/query': { query: 'dflt knowledge' },
  'POST /v1/runs/:id/fork': {},
  'POST /v1/runs/:id/requests/:requestId/respond': { approved: true },
  'POST /v1/keys': { name: 'stolen', scopes: ['admin'], tenant: 'default' },
  'POST /v1/tenants': { id: 'evil', name: 'Evil' },
  'PUT /v1/tenants/:tenant/quotas': { maxRunning: 0, startsPerMinute: 0, dailyTokenBudget: null, dailyCostBudgetUsd: null },
  'POST /v1/mcp': { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'dflt-secret', arguments: { input: 'x' } } },
  'POST /v1/a2a/:name': { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: '' } },
  'POST /v1/ag-ui/:name': { threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'user', content: 'x' }] },
  'POST /v1/chat/:name': { id: 'stolen', messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'x' }] }] },
};

/** The error code of a JSON-RPC answer, plain or the last frame of an event stream (`json-rpc <code>`). */
function jsonRpcErrorOf(text: string): string | undefined {
  const data = text.includes('data: ') ? text.split('data: ').at(-1)! : text;
  try {
    const { error } = JSON.parse(data) as { error?: { code?: number } };
    return error?.code === undefined ? undefined : `json-rpc ${error.code}`;
  } catch {
    return undefined;
  }
}

describe('tenants, from the route table', () => {
  let stack: Stack;
  let acmeKey: string;
  const theirs = {
    waitingRun: '',
    doneRun: '',
    requestId: '',
    keyId: '',
    workflow: 'dflt-secret',
    agent: 'dflt_agent',
    thread: '',
    webhook: '',
    schedule: '',
    file: '',
    knowledgeBase: 'dflt-kb',
    dataset: 'dflt-set',
    datasetItem: '',
    experiment: '',
    replay: '',
    scoreConfig: 'dflt-quality',
    document: '',
  };
  const as =
    (key: string) =>
    (path: string, init: RequestInit = {}) =>
      fetch(`${stack.gatewayUrl}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${key}`,
          ...(init.method && init.method !== 'GET' && { 'content-type': 'application/json' }),
          ...(init.headers as object),
        },
      });
  const start = async (api: (p: string, i?: RequestInit) => Promise<Response>, workflow: string) => {
    const res = await api(`/v1/workflows/${workflow}/runs`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(202);
    return ((await res.json()) as { runId: string }).runId;
  };
  /** What tenant default holds, as its admin sees it. */
  const snapshot = async () => {
    const admin = as(stack.adminKey);
    const read = async (path: string) => JSON.stringify(await (await admin(path)).json());
    const log = async (runId: string) => ((await (await admin(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] }).events.length;
    return {
      workflow: await read(`/v1/workflows/${theirs.workflow}`),
      agent: await read(`/v1/agents/${theirs.agent}`),
      key: await read(`/v1/keys/${theirs.keyId}`),
      tenant: await read('/v1/tenants/default'),
      waitingLog: await log(theirs.waitingRun),
      doneLog: await log(theirs.doneRun),
      // Without its age, which grows by itself.
      requests: (await read(`/v1/runs/${theirs.waitingRun}/requests`)).replace(/"ageMs":\d+,/g, ''),
      file: await read(`/v1/files/${theirs.file}`),
      knowledgeBase: await read(`/v1/knowledge-bases/${theirs.knowledgeBase}`),
      documents: await read(`/v1/knowledge-bases/${theirs.knowledgeBase}/documents`),
      dataset: await read(`/v1/datasets/${theirs.dataset}`),
      datasetItems: await read(`/v1/datasets/${theirs.dataset}/items`),
      scoreConfigs: await read('/v1/score-configs'),
      // Its runs go on meanwhile: what must hold is what it is, and that nobody else canceled it.
      experiment: (({ name, dataset, workflow, status }) => ({ name, dataset, workflow, canceled: status === 'canceled' }))(
        JSON.parse(await read(`/v1/experiments/${theirs.experiment}`)) as {
          name: string;
          dataset: unknown;
          workflow: unknown;
          status: string;
        },
      ),
    };
  };

  beforeAll(async () => {
    stack = await startStack();
    const admin = as(stack.adminKey);
    expect((await admin(`/v1/workflows/${theirs.workflow}`, { method: 'PUT', body: JSON.stringify(asks) })).status).toBe(201);
    expect((await admin('/v1/workflows/dflt-quick', { method: 'PUT', body: JSON.stringify(quick) })).status).toBe(201);
    expect(
      (await admin(`/v1/agents/${theirs.agent}`, { method: 'PUT', body: JSON.stringify(BODIES['PUT /v1/agents/:name']) })).status,
    ).toBe(201);
    theirs.waitingRun = await start(admin, theirs.workflow);
    theirs.doneRun = await start(admin, 'dflt-quick');
    const thread = await admin('/v1/threads', { method: 'POST', body: JSON.stringify({ metadata: { user: 'dflt-user' } }) });
    expect(thread.status).toBe(201);
    theirs.thread = ((await thread.json()) as { threadId: string }).threadId;
    const hook = await admin('/v1/webhooks', { method: 'POST', body: JSON.stringify({ url: 'https://hooks.example/dflt-hook' }) });
    expect(hook.status).toBe(201);
    theirs.webhook = ((await hook.json()) as { webhookId: string }).webhookId;
    const schedule = await admin('/v1/schedules', { method: 'POST', body: JSON.stringify({ cron: '0 3 1 1 *', workflow: 'dflt-quick' }) });
    expect(schedule.status).toBe(201);
    theirs.schedule = ((await schedule.json()) as { scheduleId: string }).scheduleId;
    const file = await admin('/v1/files?name=dflt-file.txt', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'dflt notes',
    });
    expect(file.status).toBe(201);
    theirs.file = ((await file.json()) as { fileId: string }).fileId;
    const base = await admin(`/v1/knowledge-bases/${theirs.knowledgeBase}`, {
      method: 'PUT',
      body: JSON.stringify({ embeddingModel: 'offline:hash-64', dimensions: 64 }),
    });
    expect(base.status).toBe(201);
    const doc = await admin(`/v1/knowledge-bases/${theirs.knowledgeBase}/documents`, {
      method: 'POST',
      body: JSON.stringify({ source: 'dflt-doc.md', text: 'dflt knowledge: the vault code is in the red binder.' }),
    });
    expect(doc.status).toBe(201);
    theirs.document = ((await doc.json()) as { documentId: string }).documentId;
    expect((await admin(`/v1/datasets/${theirs.dataset}`, { method: 'PUT', body: '{}' })).status).toBe(201);
    const items = await admin(`/v1/datasets/${theirs.dataset}/items`, {
      method: 'POST',
      body: JSON.stringify({ items: [{ input: 'dflt question', expected: 'dflt-expected' }] }),
    });
    expect(items.status).toBe(201);
    theirs.datasetItem = ((await items.json()) as { itemIds: string[] }).itemIds[0];
    const experiment = await admin('/v1/experiments', {
      method: 'POST',
      body: JSON.stringify({ dataset: theirs.dataset, workflow: 'dflt-quick', name: 'dflt-experiment' }),
    });
    expect(experiment.status).toBe(201);
    theirs.experiment = ((await experiment.json()) as { experimentId: string }).experimentId;
    await eventually(async () => {
      const [request] = ((await (await admin(`/v1/runs/${theirs.waitingRun}/requests`)).json()) as { requests: HumanRequest[] }).requests;
      expect(request?.status).toBe('pending');
      theirs.requestId = request.requestId;
    }, 200);
    await eventually(
      async () => expect(((await (await admin(`/v1/runs/${theirs.doneRun}`)).json()) as { status: string }).status).toBe('completed'),
      200,
    );
    const replayed = await admin('/v1/workflows/dflt-quick/replays', { method: 'POST', body: JSON.stringify({ runs: [theirs.doneRun] }) });
    expect(replayed.status).toBe(201);
    theirs.replay = ((await replayed.json()) as { replayId: string }).replayId;
    const config = { method: 'PUT', body: JSON.stringify({ dataType: 'numeric', min: 0, max: 1 }) };
    expect((await admin(`/v1/score-configs/${theirs.scoreConfig}`, config)).status).toBe(201);
    theirs.keyId = ((await (await admin('/v1/me')).json()) as { actor: { id: string } }).actor.id;
    // The platform's operator makes the other tenant with a key of its own: that key's id (not a secret)
    // shows in acme's keys and trail as who made them; the bootstrap key stays default's alone.
    const ops = await admin('/v1/keys', { method: 'POST', body: JSON.stringify({ name: 'ops', scopes: ['admin'] }) });
    const operator = as(((await ops.json()) as { key: string }).key);
    expect((await operator('/v1/tenants', { method: 'POST', body: JSON.stringify({ id: 'acme', name: 'Acme' }) })).status).toBe(201);
    const made = await operator('/v1/keys', {
      method: 'POST',
      body: JSON.stringify({
        name: 'acme admin',
        scopes: ['runs:read', 'runs:write', 'requests:answer', 'workflows:write', 'admin'],
        tenant: 'acme',
      }),
    });
    expect(made.status).toBe(201);
    acmeKey = ((await made.json()) as { key: string }).key;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('has an expectation for every route of the table, and the table is the router', async () => {
    const served = (await gatewayRoutes())
      .filter((r) => isApiRoute(r.url))
      .flatMap((r) => r.methods.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').map((m) => routeKey(m, r.url)))
      .sort();
    expect([...ROUTE_ACCESS.keys()].sort()).toEqual(served);
    expect(Object.keys(NOT_OURS).sort()).toEqual(served);
  });

  it("never reads, changes or lists the other tenant's objects, on any route, over JSON and SSE", async () => {
    const before = await snapshot();
    const markers = [
      theirs.waitingRun,
      theirs.doneRun,
      theirs.requestId,
      theirs.keyId,
      theirs.workflow,
      theirs.agent,
      'dflt-quick',
      theirs.thread,
      'dflt-user',
      theirs.webhook,
      'dflt-hook',
      theirs.schedule,
      theirs.file,
      'dflt-file.txt',
      theirs.knowledgeBase,
      theirs.document,
      'dflt-doc.md',
      'red binder',
      theirs.dataset,
      theirs.datasetItem,
      'dflt-expected',
      theirs.experiment,
      'dflt-experiment',
      theirs.replay,
      theirs.scoreConfig,
    ];
    const acme = as(acmeKey);
    const answers: Array<{ route: string; status: number; code?: string; leaked: string[] }> = [];
    for (const route of [...ROUTE_ACCESS.keys()].sort()) {
      const [method, template] = route.split(' ');
      const path = template
        .replace(':id', theirs.waitingRun)
        .replace(':requestId', theirs.requestId)
        .replace(':threadId', theirs.thread)
        .replace(':webhookId', theirs.webhook)
        .replace(':scheduleId', theirs.schedule)
        .replace(':fileId', theirs.file)
        .replace(':documentId', theirs.document)
        .replace(':itemId', theirs.datasetItem)
        .replace(':experimentId', theirs.experiment)
        .replace(':replayId', theirs.replay)
        .replace(':chatId', 'their-chat')
        .replace(':keyId', theirs.keyId)
        .replace(':tenant', 'default')
        .replace(':from', '1')
        .replace(':to', '1')
        .replace(
          ':name',
          template.startsWith('/v1/agents')
            ? theirs.agent
            : template.startsWith('/v1/knowledge-bases')
              ? theirs.knowledgeBase
              : template.startsWith('/v1/datasets')
                ? theirs.dataset
                : template.startsWith('/v1/score-configs')
                  ? theirs.scoreConfig
                  : theirs.workflow,
        );
      const query =
        route === 'GET /v1/audit'
          ? '?tenant=default'
          : route === 'GET /v1/experiments/compare'
            ? `?ids=${theirs.experiment},${theirs.experiment}`
            : '';
      const body = BODIES[route];
      const variants: RequestInit[] = [{ method, ...(body !== undefined && { body: JSON.stringify(body) }) }];
      // The stream of a run, and the stream of a start, as a client that wants events asks for them.
      if (route === 'GET /v1/runs/:id/events' || route === 'POST /v1/workflows/:name/runs') {
        variants.push({ ...variants[0], headers: { accept: 'text/event-stream' } });
      }
      // MCP's transport answers a request that may stream only to a client that takes both.
      if (route === 'POST /v1/mcp') variants[0] = { ...variants[0], headers: { accept: 'application/json, text/event-stream' } };
      for (const init of variants) {
        // What the request itself names may come back (a not-found repeats the id): anything else may not.
        const asked = `${path}${query}${String(init.body ?? '')}`;
        const res = await acme(`${path}${query}`, init);
        const text = await res.text();
        const code = res.headers.get('content-type')?.includes('problem+json')
          ? (JSON.parse(text) as { code: string }).code
          : jsonRpcErrorOf(text);
        answers.push({
          route: `${route}${init.headers ? ' (SSE)' : ''}`,
          status: res.status,
          code,
          leaked: markers.filter((m) => text.includes(m) && !asked.includes(m)),
        });
      }
    }
    const expected = answers.map((a) => {
      const outcome = NOT_OURS[a.route.replace(' (SSE)', '')];
      return { route: a.route, status: outcome.status, code: outcome.code, leaked: [] };
    });
    expect(answers).toEqual(expected);
    expect(await snapshot()).toEqual(before);
  });

  it("makes an operator's key for the tenant named in the query or the body, and refuses two different tenants", async () => {
    const admin = as(stack.adminKey);
    const post = (path: string, body: object) => admin(path, { method: 'POST', body: JSON.stringify(body) });
    const byQuery = await post('/v1/keys?tenant=acme', { name: 'by query', scopes: ['runs:read'] });
    expect(byQuery.status).toBe(201);
    expect(((await byQuery.json()) as { tenant: string }).tenant).toBe('acme');
    const both = await post('/v1/keys?tenant=acme', { name: 'two tenants', scopes: ['runs:read'], tenant: 'default' });
    expect(both.status).toBe(400);
    expect(await both.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: 'tenant' }] });
  });

  it("lists only the caller's own runs, requests, workflows, agents, keys and tenant", async () => {
    const acme = as(acmeKey);
    expect((await acme('/v1/workflows/mine', { method: 'PUT', body: JSON.stringify(asks) })).status).toBe(201);
    const mine = await start(acme, 'mine');
    await eventually(
      async () => expect(((await (await acme('/v1/requests')).json()) as { requests: HumanRequest[] }).requests).toHaveLength(1),
      200,
    );
    const ids = (items: Array<{ runId?: string; name?: string; id?: string }>) => items.map((i) => i.runId ?? i.name ?? i.id);
    const get = async <T>(path: string) => (await (await acme(path)).json()) as T;
    expect(ids((await get<{ runs: Array<{ runId: string }> }>('/v1/runs')).runs)).toEqual([mine]);
    expect((await get<{ requests: HumanRequest[] }>('/v1/requests')).requests.map((r) => r.runId)).toEqual([mine]);
    expect(ids((await get<{ workflows: Array<{ name: string }> }>('/v1/workflows')).workflows).sort()).toEqual(['dflt-secret', 'mine']);
    expect((await get<{ tenants: Array<{ id: string }> }>('/v1/tenants')).tenants.map((t) => t.id)).toEqual(['acme']);
    expect((await get<{ keys: Array<{ tenant: string }> }>('/v1/keys')).keys.every((k) => k.tenant === 'acme')).toBe(true);
    // The admin of default sees its own run list without acme's run.
    expect(ids((await (await as(stack.adminKey)('/v1/runs')).json()).runs)).not.toContain(mine);
  });

  it('records who did what, from where, in the audit trail of the tenant it belongs to', async () => {
    const admin = as(stack.adminKey);
    const answered = await admin(`/v1/runs/${theirs.waitingRun}/requests/${theirs.requestId}/respond`, {
      method: 'POST',
      body: JSON.stringify({ approved: true, respondedBy: 'ada' }),
    });
    expect(answered.status).toBe(202);
    const entries = async (key: string, query = '') =>
      ((await (await as(key)(`/v1/audit${query}`)).json()) as { entries: Array<{ action: string; actor: { id: string }; source: string }> })
        .entries;
    const defaults = await entries(stack.adminKey);
    expect(defaults.map((e) => e.action)).toEqual(
      expect.arrayContaining(['workflow.saved', 'agent.saved', 'run.started', 'tenant.created', 'request.answered']),
    );
    expect(defaults.every((e) => e.source === '127.0.0.1')).toBe(true);
    expect((await entries(stack.adminKey, '?action=request.answered'))[0]).toMatchObject({ actor: { id: theirs.keyId } });
    // Acme's admin reads acme's trail: its own changes and the key the operator made for it, nothing of default's.
    const acme = await entries(acmeKey);
    expect(acme.map((e) => e.action)).not.toContain('request.answered');
    expect(acme.map((e) => e.action)).toContain('key.created');
    // The answer names the key that answered, and whom its client said it answered for.
    const events = ((await (await admin(`/v1/runs/${theirs.waitingRun}/events`)).json()) as { events: RunEvent[] }).events;
    expect(events.find((e) => e.type === 'input.answered')?.data).toMatchObject({
      answeredBy: { kind: 'key', id: theirs.keyId, name: 'bootstrap admin', onBehalfOf: 'ada' },
    });
    expect(events[0].data).toMatchObject({ tenant: 'default', startedBy: { kind: 'key', id: theirs.keyId } });
  });

  it('refuses revoked and wrong credentials with a 401 challenge, and never writes a key into a log', async () => {
    const admin = as(stack.adminKey);
    const made = await admin('/v1/keys', { method: 'POST', body: JSON.stringify({ name: 'short-lived', scopes: ['runs:read'] }) });
    const { id, key } = (await made.json()) as { id: string; key: string };
    expect((await as(key)('/v1/runs')).status).toBe(200);
    expect((await admin(`/v1/keys/${id}`, { method: 'DELETE' })).status).toBe(200);
    const revoked = await as(key)('/v1/runs');
    expect({ status: revoked.status, challenge: revoked.headers.get('www-authenticate') }).toEqual({
      status: 401,
      challenge: 'Bearer realm="spindle", error="invalid_token"',
    });
    expect(await revoked.json()).toMatchObject({ code: 'unauthenticated', detail: 'the API key was revoked' });
    const none = await fetch(`${stack.gatewayUrl}/v1/runs`);
    expect({ status: none.status, challenge: none.headers.get('www-authenticate') }).toEqual({
      status: 401,
      challenge: 'Bearer realm="spindle"',
    });
    const readOnly = await as(key.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')))('/v1/runs');
    expect(readOnly.status).toBe(401);
    // A key that may read may not write, and is told which scope it lacks.
    const reader = (await (
      await admin('/v1/keys', { method: 'POST', body: JSON.stringify({ name: 'reader', scopes: ['runs:read'] }) })
    ).json()) as {
      key: string;
    };
    const denied = await as(reader.key)('/v1/workflows/dflt-quick/runs', { method: 'POST', body: '{}' });
    expect({ status: denied.status, body: await denied.json() }).toMatchObject({
      status: 403,
      body: { code: 'forbidden', detail: expect.stringContaining('runs:write') },
    });

    // No key, whole or its secret, in any service's log, in the run log or the dead letters.
    // The secret is all after `spk_<id>_` (it may hold `_` itself).
    const secrets = [stack.adminKey, acmeKey, key, reader.key].map((k) => parseApiKey(k)!.secret);
    const logDir = resolve(__dirname, '../../tmp/e2e-logs', stack.namespace);
    const logs = readdirSync(logDir)
      .filter((f) => f.endsWith('.log'))
      .map((f) => readFileSync(join(logDir, f), 'utf8'))
      .join('\n');
    expect(logs.length).toBeGreaterThan(1_000);
    const { jsm, names } = stack.bus;
    const stored: string[] = [];
    for (const stream of [names.eventsStream, names.deadLetterStream, names.commandsStream]) {
      const info = await jsm.streams.info(stream);
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq++) {
        const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
        if (msg) stored.push(new TextDecoder().decode(msg.data));
      }
    }
    // Messages, not events: the log writer stores a run's events in batches.
    const events = stored.flatMap((s): unknown[] => {
      try {
        const value = JSON.parse(s) as unknown;
        return Array.isArray(value) ? value : [value];
      } catch {
        return [s];
      }
    });
    expect(events.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect(secret).toHaveLength(43);
      expect({ secret: secret.slice(0, 4), inLogs: logs.includes(secret), inBus: stored.some((s) => s.includes(secret)) }).toEqual({
        secret: secret.slice(0, 4),
        inLogs: false,
        inBus: false,
      });
    }
  });
});
