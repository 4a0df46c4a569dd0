import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookEventSchema, type CreatedWebhook, type WebhookDeliveries, type WebhookEvent } from '@spindle/contracts';
import { eventually, startStack, type Stack, readsControlPlaneSettings } from '@spindle/testing';

const quick = { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] };
const asks = { kind: 'graph', nodes: [{ id: 'ask', type: 'human', prompt: 'go on?', form: 'boolean' }] };

/** What a receiver does with `Spindle-Signature` (written here from the documented scheme, not Spindle's code). */
function signatureHolds(secret: string, rawBody: string, header: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2)));
  const expected = createHmac('sha256', secret).update(`${parts.t}.${rawBody}`).digest();
  const given = Buffer.from(String(parts.v1), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected) && Math.abs(Date.now() / 1_000 - Number(parts.t)) < 300;
}

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

/** A receiver that fails the first two deliveries of every event (500), then takes it (200). */
class Receiver {
  readonly received: Received[] = [];
  private readonly server: Server;
  private readonly tries = new Map<string, number>();
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const eventId = String(req.headers['spindle-event-id']);
        const tried = (this.tries.get(eventId) ?? 0) + 1;
        this.tries.set(eventId, tried);
        const answered = tried <= 2 ? 500 : 200;
        this.received.push({ path: req.url ?? '', headers: req.headers, body, answered });
        res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered === 200 ? 'thanks' : 'not now');
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('completion webhooks', () => {
  let stack: Stack;
  const receiver = new Receiver();
  const post = async <T>(path: string, body: unknown) => {
    const res = await stack.api(path, { method: 'POST', body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as T };
  };
  const start = async (workflow: string) => (await post<{ runId: string }>(`/v1/workflows/${workflow}/runs`, {})).body.runId;

  beforeAll(async () => {
    await receiver.start();
    stack = await startStack({
      serviceEnv: (name): Record<string, string> =>
        readsControlPlaneSettings(name)
          ? { SPINDLE_WEBHOOK_ALLOW_HTTP: 'true', SPINDLE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', SPINDLE_WEBHOOK_RETRY_BASE_MS: '100' }
          : {},
    });
    for (const [name, definition] of Object.entries({ quick, asks }))
      expect((await stack.api(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(definition) })).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  it('delivers each event signed, retries the failed deliveries, and the receiver takes each exactly once', async () => {
    const ended = await post<CreatedWebhook>('/v1/webhooks', { url: `${receiver.url}/ended`, workflow: 'quick' });
    const waiting = await post<CreatedWebhook>('/v1/webhooks', {
      url: `${receiver.url}/waiting`,
      workflow: 'asks',
      events: ['run.awaiting'],
    });
    expect(ended).toMatchObject({
      status: 201,
      body: { events: ['run.completed', 'run.failed', 'run.canceled', 'run.awaiting'], workflow: 'quick' },
    });
    expect(ended.body.secret).toMatch(/^whsec_/);
    expect((await (await stack.api(`/v1/webhooks/${ended.body.webhookId}`)).json()) as object).not.toHaveProperty('secret');

    const quickRuns = [await start('quick'), await start('quick')];
    const asksRun = await start('asks');
    const byPath = (path: string) => receiver.received.filter((r) => r.path === path);
    await eventually(async () => {
      expect(byPath('/ended').filter((r) => r.answered === 200)).toHaveLength(2);
      expect(byPath('/waiting').filter((r) => r.answered === 200)).toHaveLength(1);
    }, 200);

    const secretOf = (r: Received) => (r.path === '/ended' ? ended.body.secret : waiting.body.secret);
    for (const r of receiver.received) {
      expect(signatureHolds(secretOf(r), r.body, String(r.headers['spindle-signature']))).toBe(true);
      expect(webhookEventSchema.safeParse(JSON.parse(r.body)).error).toBeUndefined();
    }
    // Three deliveries of each event (two refused, one taken), with the same event id and delivery id every time.
    const events = new Map<string, Received[]>();
    for (const r of receiver.received)
      events.set(String(r.headers['spindle-event-id']), [...(events.get(String(r.headers['spindle-event-id'])) ?? []), r]);
    expect(events.size).toBe(3);
    for (const [eventId, deliveries] of events) {
      expect({ eventId, answered: deliveries.map((d) => d.answered) }).toEqual({ eventId, answered: [500, 500, 200] });
      expect(new Set(deliveries.map((d) => d.headers['spindle-delivery-id'])).size).toBe(1);
    }
    const taken = receiver.received.filter((r) => r.answered === 200).map((r) => JSON.parse(r.body) as WebhookEvent);
    expect(
      taken
        .filter((e) => e.type === 'run.completed')
        .map((e) => e.data.runId)
        .sort(),
    ).toEqual([...quickRuns].sort());
    expect(taken.filter((e) => e.type === 'run.awaiting')).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ runId: asksRun, awaiting: expect.objectContaining({ reason: 'input' }) }),
      }),
    ]);

    // What the API shows of them: every attempt, with the receiver's status and the start of its answer. Eventually:
    // the receiver has answered before the control plane records the attempt.
    await eventually(async () => {
      const { deliveries } = (await (await stack.api(`/v1/webhooks/${ended.body.webhookId}/deliveries`)).json()) as WebhookDeliveries;
      expect(deliveries).toHaveLength(2);
      for (const d of deliveries) {
        expect(d).toMatchObject({ status: 'delivered', eventType: 'run.completed', nextAttemptAt: null });
        expect(d.attempts.map((a) => [a.attempt, a.statusCode, a.response])).toEqual([
          [1, 500, 'not now'],
          [2, 500, 'not now'],
          [3, 200, 'thanks'],
        ]);
      }
    });
  });

  it('tells a subscription only a run names of that run, and refuses a run that names one it does not have', async () => {
    const named = await post<CreatedWebhook>('/v1/webhooks', { url: `${receiver.url}/named`, namedOnly: true, events: ['run.completed'] });
    expect(named.body).toMatchObject({ namedOnly: true });
    const naming = (await post<{ runId: string }>('/v1/workflows/asks/runs', { webhooks: [named.body.webhookId] })).body.runId;
    const other = await start('quick');
    const res = await post<{ code: string }>('/v1/workflows/quick/runs', { webhooks: ['wh_01JN0000000000000000000000'] });
    expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
    // The named run waits on a person; answering ends it, and only then is the subscription told.
    await eventually(
      async () =>
        expect((await (await stack.api(`/v1/runs/${naming}/requests`)).json()) as object).toMatchObject({
          requests: [{ status: 'pending' }],
        }),
      200,
    );
    const { requests } = (await (await stack.api(`/v1/runs/${naming}/requests`)).json()) as { requests: Array<{ requestId: string }> };
    expect((await post(`/v1/runs/${naming}/requests/${requests[0].requestId}/respond`, { approved: true })).status).toBe(202);
    await eventually(async () => {
      const taken = receiver.received
        .filter((r) => r.path === '/named' && r.answered === 200)
        .map((r) => JSON.parse(r.body) as WebhookEvent);
      expect(taken.map((e) => [e.type, e.data.runId])).toEqual([['run.completed', naming]]);
    }, 200);
    expect(receiver.received.filter((r) => r.path === '/named').some((r) => r.body.includes(other))).toBe(false);
  });

  it('refuses targets it may not reach and subscriptions that name nothing, and a deleted one gets nothing more', async () => {
    const code = async (body: unknown) => {
      const res = await post<{ code?: string }>('/v1/webhooks', body);
      return { status: res.status, code: res.body.code };
    };
    for (const url of ['not a url', 'ftp://hooks.example/x', 'https://u:p@hooks.example/x'])
      expect({ url, ...(await code({ url })) }).toEqual({ url, status: 400, code: 'validation_failed' });
    for (const url of ['https://10.0.0.5/x', 'https://localhost./x', 'http://169.254.169.254/latest', 'https://[64:ff9b::7f00:1]/x'])
      expect({ url, ...(await code({ url })) }).toEqual({ url, status: 400, code: 'egress_refused' });
    expect(await code({ url: 'https://hooks.example/x', events: ['run.started'] })).toEqual({ status: 400, code: 'validation_failed' });
    expect(await code({ url: 'https://hooks.example/x', workflow: 'nope' })).toEqual({ status: 404, code: 'workflow_not_found' });
    expect(await code({ url: 'https://hooks.example/x', threadId: 'thr_01JN0000000000000000000000' })).toEqual({
      status: 404,
      code: 'thread_not_found',
    });

    const gone = await post<CreatedWebhook>('/v1/webhooks', { url: `${receiver.url}/gone`, workflow: 'quick', events: ['run.completed'] });
    expect((await stack.api(`/v1/webhooks/${gone.body.webhookId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await stack.api(`/v1/webhooks/${gone.body.webhookId}`)).status).toBe(404);
    const before = receiver.received.length;
    const runId = await start('quick');
    // The subscription made before still gets the run's end; the deleted one nothing.
    await eventually(async () => {
      const taken = receiver.received
        .slice(before)
        .filter((r) => r.answered === 200)
        .map((r) => JSON.parse(r.body) as WebhookEvent);
      expect(taken.map((e) => e.data.runId)).toEqual([runId]);
    }, 200);
  });
});
