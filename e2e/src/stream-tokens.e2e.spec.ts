import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { runEventTypes } from '@spindle/contracts';
import { eventually, freePort, launchChromium, startStack, type Stack } from '@spindle/testing';

/** Stream tokens through the real gateway: mint, follow, and every refusal; the token in no log. */
describe('stream tokens', () => {
  let stack: Stack;
  let page: Server;
  let pageOrigin = '';
  let browser: Browser;
  const quick = { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] };
  const mint = async (runId: string, body: object = {}, auth = stack.auth) =>
    fetch(`${stack.gatewayUrl}/v1/runs/${runId}/stream-tokens`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const follow = (runId: string, token: string) =>
    fetch(`${stack.gatewayUrl}/v1/runs/${runId}/events?access_token=${encodeURIComponent(token)}`, {
      headers: { accept: 'text/event-stream' },
    });
  const startRun = async () => {
    const res = await stack.api('/v1/workflows/st-quick/runs', { method: 'POST', body: '{}' });
    return ((await res.json()) as { runId: string }).runId;
  };

  beforeAll(async () => {
    // A page on another origin, allowed by CORS: what a web app beside the gateway is.
    const port = await freePort();
    pageOrigin = `http://127.0.0.1:${port}`;
    page = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'));
    await new Promise<void>((resolve) => page.listen(port, '127.0.0.1', resolve));
    stack = await startStack({
      serviceEnv: (s) => (s === 'gateway' ? { SPINDLE_CORS_ORIGINS: pageOrigin } : ({} as Record<string, string>)),
    });
    browser = await launchChromium();
    expect((await stack.api('/v1/workflows/st-quick', { method: 'PUT', body: JSON.stringify(quick) })).status).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    page?.close();
    await stack?.stop();
  });

  it("is followed by a native EventSource on another origin's page, event for event as the log", async () => {
    const runId = await startRun();
    const { token } = (await (await mint(runId)).json()) as { token: string };
    const tab = await browser.newPage();
    await tab.goto(pageOrigin);
    const url = `${stack.gatewayUrl}/v1/runs/${runId}/events?access_token=${encodeURIComponent(token)}`;
    const received = await tab.evaluate(
      ({ src, types }) =>
        new Promise<Array<{ id: string; type: string }>>((resolve, reject) => {
          const seen: Array<{ id: string; type: string }> = [];
          const source = new EventSource(src);
          // Each frame is named for its event's type: listen to every type the log can hold.
          const onEvent = (e: MessageEvent) => {
            const event = JSON.parse(e.data as string) as { type: string };
            seen.push({ id: e.lastEventId, type: event.type });
            if (event.type === 'run.completed') {
              source.close();
              resolve(seen);
            }
          };
          for (const type of types) source.addEventListener(type, onEvent);
          source.onerror = () => {
            source.close();
            reject(new Error(`EventSource failed after ${seen.length} events`));
          };
        }),
      { src: url, types: [...runEventTypes] },
    );
    await tab.close();
    const log = ((await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: Array<{ seq: number; type: string }> }).events;
    expect(received).toEqual(log.map((e) => ({ id: String(e.seq), type: e.type })));
  });

  it('mints a token that follows its run, refuses it elsewhere, and never logs it', async () => {
    const runId = await startRun();
    const minted = await mint(runId, { ttlSeconds: 60 });
    expect(minted.status).toBe(201);
    const { token, expiresAt } = (await minted.json()) as { token: string; expiresAt: string };
    expect(token).toMatch(/^sst_/);
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    await eventually(
      async () => expect(((await (await stack.api(`/v1/runs/${runId}`)).json()) as { status: string }).status).toBe('completed'),
      200,
    );
    const streamed = await follow(runId, token);
    expect(streamed.status).toBe(200);
    const text = await streamed.text();
    const log = ((await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: Array<{ seq: number }> }).events;
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual(log.map((e) => e.seq));

    const other = await startRun();
    const wrongRun = await follow(other, token);
    expect({ status: wrongRun.status, code: ((await wrongRun.json()) as { code: string }).code }).toEqual({
      status: 403,
      code: 'forbidden',
    });
    const elsewhere = await fetch(`${stack.gatewayUrl}/v1/runs/${runId}?access_token=${token}`);
    const refusal = (await elsewhere.json()) as { code: string; instance: string };
    expect({ status: elsewhere.status, code: refusal.code }).toEqual({ status: 401, code: 'unauthenticated' });
    expect(refusal.instance).toBe(`/v1/runs/${runId}?access_token=REDACTED`);
    const altered = await follow(
      runId,
      token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
    );
    expect(altered.status).toBe(401);
    expect((await mint(runId, { ttlSeconds: 5 })).status).toBe(400);

    // A key's token falls with the key.
    const made = await stack.api('/v1/keys', { method: 'POST', body: JSON.stringify({ name: 'page', scopes: ['runs:read'] }) });
    const { id, key } = (await made.json()) as { id: string; key: string };
    const pageToken = ((await (await mint(runId, {}, { authorization: `Bearer ${key}` })).json()) as { token: string }).token;
    expect((await follow(runId, pageToken)).status).toBe(200);
    expect((await stack.api(`/v1/keys/${id}`, { method: 'DELETE' })).status).toBe(200);
    const revoked = await follow(runId, pageToken);
    expect({ status: revoked.status, code: ((await revoked.json()) as { code: string }).code }).toEqual({
      status: 401,
      code: 'unauthenticated',
    });

    const logDir = join(__dirname, '..', '..', 'tmp', 'e2e-logs', stack.namespace);
    for (const file of readdirSync(logDir).filter((f) => f.endsWith('.log'))) {
      const logged = readFileSync(join(logDir, file), 'utf8');
      expect([file, logged.includes(token.slice(4)) || logged.includes(pageToken.slice(4))]).toEqual([file, false]);
    }
  });
});
