import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { eventually, launchChromium, readsControlPlaneSettings, signInWithKey, startStack, type Stack } from '@spindle/testing';
import type { Browser, Page } from 'playwright-core';

/**
 * Issue 30: threads, schedules and webhooks have console pages: a thread's runs and state; a
 * schedule's next firings, pause and history; a subscription's deliveries with each attempt's
 * answer and error. Each page is opened against a real stack with data made through the API.
 */
const SHOTS = resolve(__dirname, '../..', process.env.SPINDLE_SCREENSHOTS ?? 'tmp/screenshots');
const HELLO = JSON.parse(readFileSync(resolve(__dirname, '../../examples/hello-workflow.json'), 'utf8')) as unknown;

describe('the console pages for threads, schedules and webhooks', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let receiver: Server;
  let received = 0;
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await stack.api(path, { method: 'POST', body: JSON.stringify(body) });
    expect(res.status).toBeLessThan(300);
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // A receiver that refuses every delivery, so its attempts carry an answer and an error.
    receiver = createServer((req, res) => {
      req.resume();
      received += 1;
      res.writeHead(500, { 'content-type': 'text/plain' }).end('not today');
    });
    await new Promise<void>((ready) => receiver.listen(0, '127.0.0.1', ready));
    stack = await startStack({
      serviceEnv: (name): Record<string, string> =>
        readsControlPlaneSettings(name) ? { SPINDLE_WEBHOOK_ALLOW_HTTP: 'true', SPINDLE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } : {},
    });
    expect((await stack.api('/v1/workflows/hello', { method: 'PUT', body: JSON.stringify(HELLO) })).status).toBe(201);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(stack.gatewayUrl);
    await signInWithKey(page, stack.adminKey);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    receiver?.close();
  });

  it("shows a thread's runs in order and its state", async () => {
    const { threadId } = await post<{ threadId: string }>('/v1/threads', { metadata: { user: 'ada' } });
    const { runId } = await post<{ runId: string }>(`/v1/threads/${threadId}/runs`, { workflow: 'hello', input: { name: 'Ada' } });
    await eventually(async () => expect(await (await stack.api(`/v1/threads/${threadId}`)).json()).toMatchObject({ stateFromRun: runId }));
    await page.goto(`${stack.gatewayUrl}/#/threads/${threadId}`);
    await page.getByTestId('thread-runs').getByText(runId).waitFor();
    await page.getByTestId('thread-state').getByText('Hello Ada').first().waitFor();
    expect(await page.getByTestId('thread-forks').textContent()).toContain('No run of this thread has been forked');
    // A fork of the thread's run is drawn in the thread's fork tree, at its checkpoint.
    const forked = await stack.api(`/v1/runs/${runId}/fork`, { method: 'POST', body: JSON.stringify({ checkpointId: 'cp-1' }) });
    expect(forked.status).toBe(202);
    const fork = ((await forked.json()) as { runId: string }).runId;
    const tree = page.getByTestId('thread-forks').getByTestId('fork-tree');
    await tree.locator(`li[data-run-id="${fork}"]`).waitFor();
    expect(await tree.getAttribute('data-root')).toBe(runId);
    expect(await tree.locator(`li[data-run-id="${fork}"]`).textContent()).toContain('at cp-1');
    await page.screenshot({ path: `${SHOTS}/thread.png` });
  });

  it("shows a schedule's next firings, and Pause on the page pauses it", async () => {
    const { scheduleId } = await post<{ scheduleId: string }>('/v1/schedules', { cron: '0 9 * * 1-5', timezone: 'UTC', workflow: 'hello' });
    await page.goto(`${stack.gatewayUrl}/#/schedules/${scheduleId}`);
    await page.getByTestId('upcoming-firings').locator('li').nth(4).waitFor();
    await page.screenshot({ path: `${SHOTS}/schedule.png` });
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByTestId('schedule-state').getByText('paused').waitFor();
    expect(await (await stack.api(`/v1/schedules/${scheduleId}`)).json()).toMatchObject({ paused: true, upcoming: [] });
  });

  it("shows a subscription's deliveries with each attempt's answer and error", async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const { webhookId } = await post<{ webhookId: string }>('/v1/webhooks', { url, workflow: 'hello', events: ['run.completed'] });
    const { runId } = await post<{ runId: string }>('/v1/workflows/hello/runs', { input: { name: 'Hook' } });
    await eventually(async () => expect(received).toBeGreaterThan(0), 200, 100);
    await page.goto(`${stack.gatewayUrl}/#/webhooks/${webhookId}`);
    const delivery = page.getByTestId('delivery').filter({ hasText: runId });
    await delivery.getByTestId('delivery-attempts').getByText('500').first().waitFor();
    await page.screenshot({ path: `${SHOTS}/webhook.png` });
  });
});
