import { useSyncExternalStore } from 'react';
import { isSpindleApiError, SpindleUnreachableError, type AuthConfig, type Me } from '@spindle/client';
import { api, onCredentialRejected } from '../api/client';
import { beginOidcLogin, completeOidcLogin, loginCallbackIn, SignInProblem } from './oidc-login';
import { clearSessionStorage, forgetCredential, storeCredential, storedCredential } from './session-storage';

/** Where the console is with signing in; only `signed-in` shows the console itself. */
export type Session =
  | { state: 'starting' }
  | { state: 'unreachable'; problem: string }
  | { state: 'signed-out'; config: AuthConfig; problem?: string }
  | { state: 'signed-in'; config: AuthConfig; me: Me };

let current: Session = { state: 'starting' };
const listeners = new Set<() => void>();

function become(next: Session): void {
  current = next;
  for (const listener of listeners) listener();
}

export function useSession(): Session {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
  );
}

/**
 * On load: how the gateway signs people in; an identity provider's answer in the URL, if any;
 * then whether the credential kept in this tab is still good. Authentication off skips all that.
 */
export async function startSession(): Promise<void> {
  become({ state: 'starting' });
  let config: AuthConfig;
  try {
    config = await api.authConfig();
  } catch (e) {
    return become({ state: 'unreachable', problem: `Could not reach the gateway: ${messageOf(e)}` });
  }
  if (config.authOff) return check(config, undefined);
  const callback = loginCallbackIn(window.location.search);
  if (callback) {
    try {
      storeCredential(await completeOidcLogin(config.oidc, callback));
    } catch (e) {
      return become({ state: 'signed-out', config, problem: messageOf(e) });
    }
  }
  const credential = storedCredential();
  if (credential === undefined) return become({ state: 'signed-out', config });
  return check(config, credential);
}

async function check(config: AuthConfig, credential: string | undefined): Promise<void> {
  try {
    become({ state: 'signed-in', config, me: await api.me(credential) });
  } catch (e) {
    if (!isSpindleApiError(e) || e.status !== 401) return become({ state: 'unreachable', problem: messageOf(e) });
    forgetCredential();
    become({ state: 'signed-out', config, problem: `Signed out: ${e.detail}` });
  }
}

/** Checks a pasted API key with `GET /v1/me` and keeps it only if the gateway accepts it; a refusal is thrown. */
export async function signInWithKey(pasted: string): Promise<void> {
  if (current.state !== 'signed-out') return;
  const { config } = current;
  // Pasted from a curl line, say.
  const key = pasted.trim().replace(/^Bearer\s+/i, '');
  const me = await api.me(key);
  storeCredential(key);
  become({ state: 'signed-in', config, me });
}

/** Leaves for the identity provider's login page; a problem before leaving is thrown. */
export async function signInWithProvider(): Promise<void> {
  if (current.state !== 'signed-out' || !current.config.oidc) return;
  await beginOidcLogin(current.config.oidc);
}

export function signOut(): void {
  clearSessionStorage();
  if (current.state === 'signed-in') become({ state: 'signed-out', config: current.config });
}

// A revoked key or an expired token: back to sign-in, on the same route, saying why.
onCredentialRejected((problem) => {
  forgetCredential();
  if (current.state === 'signed-in') become({ state: 'signed-out', config: current.config, problem: `Signed out: ${problem.detail}` });
});

function messageOf(e: unknown): string {
  if (isSpindleApiError(e)) return `${e.code}: ${e.detail}`;
  // The network's reason alone: the session's own words say the gateway could not be reached.
  if (e instanceof SpindleUnreachableError) return (e.cause as Error | undefined)?.message ?? e.message;
  if (e instanceof SignInProblem) return e.message;
  return e instanceof Error ? e.message : String(e);
}
