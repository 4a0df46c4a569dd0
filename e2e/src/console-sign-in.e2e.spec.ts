import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { startOidcIssuer, startStack, type LocalOidcIssuer, type Stack, launchChromium, signInWithKey } from '@spindle/testing';
import type { Browser, Page } from 'playwright-core';

const SHOTS = resolve(__dirname, '../..', process.env.SPINDLE_SCREENSHOTS ?? 'tmp/screenshots');

/** A workflow that needs no model: it completes as soon as a runner picks it up. */
const NOTE = { kind: 'graph', nodes: [{ id: 'note', type: 'set', values: { note: '{{input}}' } }] };

/** Signing in to the console: API keys, the identity provider's login, tenants, sign-out and expiry. */
describe('signing in to the console', () => {
  let issuer: LocalOidcIssuer;
  let stack: Stack;
  let browser: Browser;
  /** The page of the running test: a fresh browser context each time, so no session carries over. */
  let page: Page;

  const signedInAs = () => page.locator('[data-testid="signed-in-as"]');
  const signInForm = () => page.locator('[data-testid="sign-in"]');
  const problem = () => page.locator('[data-testid="sign-in-problem"]');
  const sessionKeys = () => page.evaluate(() => Object.keys(sessionStorage));
  /** `fetch` against the gateway with a key of the caller's choosing. */
  const as = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${stack.gatewayUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...(init.method ? { 'content-type': 'application/json' } : {}) },
    });
  const newKey = async (body: { name: string; scopes: string[]; tenant?: string }) => {
    const res = await stack.api('/v1/keys', { method: 'POST', body: JSON.stringify(body) });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; key: string };
  };
  const startRun = async (key: string, workflow: string) => {
    expect((await as(key, `/v1/workflows/${workflow}`, { method: 'PUT', body: JSON.stringify(NOTE) })).status).toBe(201);
    const res = await as(key, `/v1/workflows/${workflow}/runs`, { method: 'POST', body: JSON.stringify({ input: 'hi' }) });
    expect(res.status).toBe(202);
    return ((await res.json()) as { runId: string }).runId;
  };

  const listedRuns = async (key: string) =>
    ((await (await as(key, '/v1/runs')).json()) as { runs: Array<{ runId: string }> }).runs.map((r) => r.runId);
  const until = async (check: () => Promise<boolean>, what: string, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    issuer = await startOidcIssuer();
    stack = await startStack({
      serviceEnv: (service): Record<string, string> =>
        service === 'gateway'
          ? {
              SPINDLE_OIDC_ISSUER: issuer.issuer,
              SPINDLE_OIDC_AUDIENCE: issuer.audience,
              SPINDLE_OIDC_CONSOLE_CLIENT_ID: 'spindle-console',
            }
          : {},
    });
    browser = await launchChromium();
  });
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  });
  afterEach(async () => {
    await page?.close();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await issuer?.close();
  });

  it('refuses a wrong key with the gateway’s reason and stays on sign-in, keeping nothing', async () => {
    await page.goto(stack.gatewayUrl);
    await signInForm().waitFor();
    await page.screenshot({ path: `${SHOTS}/sign-in.png` });
    await page.getByLabel('API key').fill(`spk_${'0'.repeat(16)}_${'x'.repeat(43)}`);
    await page.getByRole('button', { name: 'Sign in with key' }).click();
    await problem().waitFor();
    expect(await problem().textContent()).toMatch(/^unauthenticated: /);
    await page.screenshot({ path: `${SHOTS}/sign-in-refused.png` });
    expect(await signInForm().isVisible()).toBe(true);
    expect(await signedInAs().count()).toBe(0);
    expect(await sessionKeys()).toEqual([]);
  });

  it('signs in with the admin key, stays signed in over a reload, and signs out for good', async () => {
    await page.goto(`${stack.gatewayUrl}/#/workflows`);
    await signInWithKey(page, stack.adminKey);
    expect(await page.locator('[data-testid="actor-name"]').textContent()).toBe('bootstrap admin');
    expect(await page.locator('[data-testid="tenant"]').textContent()).toContain('default');
    // Back on the page it was opened on; the key is in this tab's sessionStorage, nowhere else.
    expect(page.url()).toBe(`${stack.gatewayUrl}/#/workflows`);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(await page.evaluate(() => sessionStorage.getItem('spindle.credential'))).toBe(stack.adminKey);

    await page.reload();
    await signedInAs().waitFor();
    expect(await page.locator('[data-testid="actor-name"]').textContent()).toBe('bootstrap admin');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInForm().waitFor();
    expect(await sessionKeys()).toEqual([]);
    await page.reload();
    await signInForm().waitFor();
    expect(await signedInAs().count()).toBe(0);
  });

  it('shows a tenant its own runs only', async () => {
    expect((await stack.api('/v1/tenants', { method: 'POST', body: JSON.stringify({ id: 'acme', name: 'Acme' }) })).status).toBe(201);
    const acme = await newKey({ name: 'acme console', scopes: ['runs:read', 'runs:write', 'workflows:write'], tenant: 'acme' });
    const acmeRun = await startRun(acme.key, 'acme-notes');
    const defaultRun = await startRun(stack.adminKey, 'default-notes');
    // Both runs are in the runs read model before the console asks, so a leak would show.
    await until(async () => (await listedRuns(acme.key)).includes(acmeRun), "acme's run in the list");
    await until(async () => (await listedRuns(stack.adminKey)).includes(defaultRun), "the default tenant's run in the list");

    await page.goto(`${stack.gatewayUrl}/#/runs`);
    await signInWithKey(page, acme.key);
    expect(await page.locator('[data-testid="actor-name"]').textContent()).toBe('acme console');
    expect(await page.locator('[data-testid="tenant"]').textContent()).toBe('Acme (acme)');
    await page.locator(`tr[data-run-id="${acmeRun}"]`).waitFor();
    expect(await page.locator('tr[data-run-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')))).toEqual([acmeRun]);
    await page.screenshot({ path: `${SHOTS}/runs-of-a-tenant.png` });

    // The default tenant's admin, in the same tab after signing out, sees its own run and not acme's.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInWithKey(page, stack.adminKey);
    await page.locator(`tr[data-run-id="${defaultRun}"]`).waitFor();
    expect(await page.locator(`tr[data-run-id="${acmeRun}"]`).count()).toBe(0);
  });

  it('returns to sign-in, on the same page and saying why, once the gateway refuses the key', async () => {
    const viewer = await newKey({ name: 'short-lived viewer', scopes: ['runs:read'] });
    await page.goto(`${stack.gatewayUrl}/#/inbox`);
    await signInWithKey(page, viewer.key);
    expect((await stack.api(`/v1/keys/${viewer.id}`, { method: 'DELETE' })).status).toBe(200);
    // The inbox polls: its next request is refused.
    await problem().waitFor({ timeout: 20_000 });
    expect(await problem().textContent()).toMatch(/^Signed out: /);
    expect(await sessionKeys()).toEqual([]);
    await signInWithKey(page, stack.adminKey);
    expect(page.url()).toBe(`${stack.gatewayUrl}/#/inbox`);
    await page.getByText('Nothing is waiting for a person.').waitFor();
  });

  it('signs in with the identity provider, comes back to the page it left, and leaves when the token expires', async () => {
    issuer.setLoginUser({
      sub: 'u-ada',
      tenant: 'default',
      scope: 'runs:read runs:write requests:answer',
      name: 'Ada Lovelace',
      aud: issuer.audience,
    });
    await page.goto(`${stack.gatewayUrl}/#/inbox`);
    await page.getByRole('button', { name: `Sign in with ${new URL(issuer.issuer).host}` }).click();
    await signedInAs().waitFor();
    expect(await page.locator('[data-testid="actor-name"]').textContent()).toBe('Ada Lovelace');
    expect(await page.locator('[data-testid="tenant"]').textContent()).toContain('default');
    // The code and state are gone from the address bar; the route is the one left.
    expect(page.url()).toBe(`${stack.gatewayUrl}/#/inbox`);
    expect(await sessionKeys()).toEqual(['spindle.credential']);
    await page.getByText('Nothing is waiting for a person.').waitFor();
    await page.screenshot({ path: `${SHOTS}/signed-in-with-provider.png` });

    // The access token runs out: the next request is refused and the console asks to sign in again.
    const expired = await issuer.issue({ sub: 'u-ada', tenant: 'default', scope: 'runs:read', name: 'Ada Lovelace', expiresInSec: -60 });
    await page.evaluate((token) => sessionStorage.setItem('spindle.credential', token), expired);
    await problem().waitFor({ timeout: 20_000 });
    expect(await problem().textContent()).toMatch(/^Signed out: /);
    expect(await signedInAs().count()).toBe(0);
  });

  it('says why when the identity provider’s answer does not match the sign-in this tab started', async () => {
    await page.goto(`${stack.gatewayUrl}/?code=stolen&state=forged#/runs`);
    await problem().waitFor();
    expect(await problem().textContent()).toContain('state mismatch');
    expect(page.url()).toBe(`${stack.gatewayUrl}/#/runs`);
    expect(await signedInAs().count()).toBe(0);
  });
});
