import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../api/client';
import { signInWithKey, signOut, startSession, useSession } from './session';

// Outside a component, the hook is the store's snapshot.
vi.mock('react', () => ({ useSyncExternalStore: (_subscribe: unknown, get: () => unknown) => get() }));
const snapshot = () => useSession();

const KEY = `spk_${'a'.repeat(16)}_${'b'.repeat(43)}`;
const ME = {
  actor: { kind: 'key', id: 'key_1', name: 'bootstrap admin' },
  tenant: { id: 'default', name: 'Default', operator: true },
  scopes: ['runs:read'],
  via: 'api_key',
};
const problem = (status: number, code: string, detail: string) => Response.json({ code, detail }, { status });

/** A gateway answering `/v1/auth/config` and `/v1/me`; records the credentials `/v1/me` was asked with. */
function gateway(opts: { authOff?: boolean; validKeys?: string[]; down?: boolean }) {
  const asked: Array<string | null> = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      if (opts.down) throw new TypeError('Failed to fetch');
      if (url === '/v1/auth/config') return Response.json({ authOff: Boolean(opts.authOff), apiKeys: true, oidc: null });
      const authorization = new Headers(init.headers).get('authorization');
      asked.push(authorization);
      if (opts.authOff) return Response.json({ ...ME, actor: { kind: 'system', id: 'auth-off', name: 'anonymous' }, via: 'auth_off' });
      if (opts.validKeys?.some((k) => authorization === `Bearer ${k}`)) return Response.json(ME);
      return problem(401, 'unauthenticated', 'the API key is not valid');
    }),
  );
  return asked;
}

describe('the console session', () => {
  let store: Map<string, string>;
  beforeEach(() => {
    store = new Map();
    vi.stubGlobal('sessionStorage', {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
      clear: () => store.clear(),
    });
    vi.stubGlobal('window', {
      location: { search: '', hash: '#/runs', pathname: '/', origin: 'http://console.test' },
      history: { replaceState: vi.fn() },
    });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('needs no sign-in when authentication is off, and sends no credential', async () => {
    const asked = gateway({ authOff: true });
    await startSession();
    expect(snapshot()).toMatchObject({ state: 'signed-in', me: { via: 'auth_off' } });
    expect(asked).toEqual([null]);
  });

  it('asks to sign in without a credential; keeps a key only once the gateway accepts it', async () => {
    gateway({ validKeys: [KEY] });
    await startSession();
    expect(snapshot()).toEqual({ state: 'signed-out', config: { authOff: false, apiKeys: true, oidc: null } });
    await expect(signInWithKey('spk_wrong')).rejects.toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(store.size).toBe(0);
    await signInWithKey(`  Bearer ${KEY}\n`);
    expect(snapshot()).toMatchObject({ state: 'signed-in', me: { actor: { name: 'bootstrap admin' } } });
    expect([...store]).toEqual([['spindle.credential', KEY]]);
  });

  it('reuses the key kept in the tab, and forgets it with the reason when the gateway refuses it', async () => {
    store.set('spindle.credential', KEY);
    gateway({ validKeys: [KEY] });
    await startSession();
    expect(snapshot().state).toBe('signed-in');

    gateway({ validKeys: [] });
    await startSession();
    expect(snapshot()).toMatchObject({ state: 'signed-out', problem: 'Signed out: the API key is not valid' });
    expect(store.size).toBe(0);
  });

  it('ends the session when a request of the signed-in key is refused, but not for a request of an earlier one', async () => {
    store.set('spindle.credential', KEY);
    gateway({ validKeys: [KEY] });
    await startSession();
    // Signed in again with another key while an old request was out: its refusal changes nothing.
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => (store.set('spindle.credential', 'spk_next'), problem(401, 'unauthenticated', 'the API key was revoked'))),
    );
    await expect(api.runs({ sort: 'started', order: 'desc' })).rejects.toMatchObject({ status: 401 });
    expect(snapshot().state).toBe('signed-in');

    vi.stubGlobal(
      'fetch',
      vi.fn(async () => problem(401, 'unauthenticated', 'the API key was revoked')),
    );
    await expect(api.runs({ sort: 'started', order: 'desc' })).rejects.toMatchObject({ status: 401 });
    expect(snapshot()).toMatchObject({ state: 'signed-out', problem: 'Signed out: the API key was revoked' });
    expect(store.size).toBe(0);
  });

  it('says the gateway is unreachable (keeping the credential), rather than asking to sign in', async () => {
    store.set('spindle.credential', KEY);
    gateway({ down: true });
    await startSession();
    expect(snapshot()).toEqual({ state: 'unreachable', problem: 'Could not reach the gateway: Failed to fetch' });
    expect(store.get('spindle.credential')).toBe(KEY);
  });

  it('refuses an identity provider answer that belongs to no sign-in of this tab, and cleans the address bar', async () => {
    (window.location as { search: string }).search = '?code=stolen&state=forged';
    gateway({});
    await startSession();
    expect(snapshot()).toMatchObject({ state: 'signed-out', problem: expect.stringContaining('state mismatch') });
    expect(window.history.replaceState).toHaveBeenCalledWith(null, '', '/#/runs');
  });

  it('clears the whole tab session on sign-out', async () => {
    store.set('spindle.credential', KEY);
    store.set('spindle.oidc.pending', '{}');
    gateway({ validKeys: [KEY] });
    await startSession();
    signOut();
    expect(snapshot().state).toBe('signed-out');
    expect(store.size).toBe(0);
  });
});
