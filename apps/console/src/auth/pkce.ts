/** Proof Key for Code Exchange (RFC 7636) with S256, on the browser's Web Crypto. */

/** `bytes` random bytes as base64url: 32 give the 43 characters of a code verifier or a `state`. */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The `code_challenge` of a verifier: base64url(SHA-256(verifier)). */
export async function s256Challenge(codeVerifier: string): Promise<string> {
  // Web Crypto's digest exists only in a secure context: https, or http on localhost.
  if (!globalThis.crypto?.subtle)
    throw new Error('signing in needs the console on https (or localhost): the browser has no Web Crypto here');
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier))));
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
