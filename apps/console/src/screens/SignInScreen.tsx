import { useState, type FormEvent } from 'react';
import { isSpindleApiError, type AuthConfig } from '@spindle/client';
import { issuerHost } from '../auth/oidc-login';
import { signInWithKey, signInWithProvider, startSession } from '../auth/session';

/**
 * Shown without a credential, or once the gateway refused it: paste an API key (checked with
 * `GET /v1/me` before it is kept) or, when the gateway names an identity provider, sign in there.
 * Without `config` the gateway could not be asked how to sign in.
 */
export function SignInScreen({ config, problem }: { config?: AuthConfig; problem?: string }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string>();
  const attempt = async (signIn: () => Promise<void>) => {
    setBusy(true);
    setRefusal(undefined);
    try {
      await signIn();
    } catch (e) {
      setRefusal(isSpindleApiError(e) ? `${e.code}: ${e.detail}` : (e as Error).message);
      setBusy(false);
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void attempt(() => signInWithKey(key));
  };
  const shown = refusal ?? problem;
  return (
    <div className="sign-in-page">
      <form className="sign-in card" onSubmit={submit} data-testid="sign-in">
        <h1>Sign in to Spindle</h1>
        {shown && (
          <p className="error" role="alert" data-testid="sign-in-problem">
            {shown}
          </p>
        )}
        {config ? (
          <>
            <label>
              API key
              <input
                type="password"
                value={key}
                onChange={(e) => setKey(e.target.value)}
                placeholder="spk_…"
                autoComplete="off"
                spellCheck={false}
                aria-label="API key"
              />
            </label>
            <button type="submit" disabled={busy || !key.trim()}>
              Sign in with key
            </button>
            <p className="muted">The key is kept in this browser tab only, until you sign out or close it.</p>
            {config.oidc && (
              <>
                <div className="or">or</div>
                <button type="button" disabled={busy} onClick={() => void attempt(signInWithProvider)}>
                  Sign in with {issuerHost(config.oidc)}
                </button>
              </>
            )}
          </>
        ) : (
          <button type="button" onClick={() => void startSession()}>
            Try again
          </button>
        )}
      </form>
    </div>
  );
}
