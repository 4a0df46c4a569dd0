/**
 * Everything the console keeps of a sign-in, in `sessionStorage` only: it lasts as long as the
 * browser tab, is never written to localStorage or put in a URL, and signing out clears it.
 */
const CREDENTIAL = 'spindle.credential';
const PENDING_LOGIN = 'spindle.oidc.pending';

/** An OIDC login between the redirect to the identity provider and its answer. */
export interface PendingLogin {
  state: string;
  codeVerifier: string;
  /** The hash route the user was on, to return to. */
  returnTo: string;
}

/** The API key or access token sent as `Authorization: Bearer …`. */
export function storedCredential(): string | undefined {
  return sessionStorage.getItem(CREDENTIAL) ?? undefined;
}

export function storeCredential(credential: string): void {
  sessionStorage.setItem(CREDENTIAL, credential);
}

export function forgetCredential(): void {
  sessionStorage.removeItem(CREDENTIAL);
}

export function storePendingLogin(login: PendingLogin): void {
  sessionStorage.setItem(PENDING_LOGIN, JSON.stringify(login));
}

/** Reads and removes the pending login: an answer from the identity provider is used once. */
export function takePendingLogin(): PendingLogin | undefined {
  const text = sessionStorage.getItem(PENDING_LOGIN);
  sessionStorage.removeItem(PENDING_LOGIN);
  if (text === null) return undefined;
  try {
    const login = JSON.parse(text) as Partial<PendingLogin>;
    const strings = [login.state, login.codeVerifier, login.returnTo].every((v) => typeof v === 'string');
    return strings ? (login as PendingLogin) : undefined;
  } catch {
    return undefined;
  }
}

/** Sign-out: nothing of the session stays behind. */
export function clearSessionStorage(): void {
  sessionStorage.clear();
}
