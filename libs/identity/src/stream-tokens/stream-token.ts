import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { RUN_ID_PATTERN, SpindleError, tenantIdSchema } from '@spindle/contracts';
import { z } from 'zod';
import { API_KEY_ID_PATTERN } from '../api-keys/api-key-format';

/**
 * A stream token is `sst_<claims>.<signature>`, both base64url: the claims are JSON, the signature
 * their HMAC-SHA256 under the gateway's stream-token secret. It lets a page follow one run's events
 * with a native `EventSource`, which cannot send `Authorization`: the URL carries it, so it lives
 * minutes, reads one run and nothing else, and falls with the key that minted it.
 */
export const STREAM_TOKEN_PREFIX = 'sst_';

/** A configured secret shorter than this is refused at start. */
export const MIN_STREAM_TOKEN_SECRET_LENGTH = 32;

export const streamTokenClaimsSchema = z.strictObject({
  /** The tenant of the run and of the key. */
  tenant: tenantIdSchema,
  run: z.string().regex(RUN_ID_PATTERN),
  /** The API key that minted it: the token stops working when the key is revoked or expires. */
  key: z.string().regex(API_KEY_ID_PATTERN),
  /** Expiry, in seconds since the epoch. */
  exp: z.number().int().positive(),
});
export type StreamTokenClaims = z.infer<typeof streamTokenClaimsSchema>;

export interface MintedStreamToken {
  token: string;
  claims: StreamTokenClaims;
  expiresAt: Date;
}

export interface StreamTokenSignerOptions {
  /** At least 32 characters; without one, a random secret: tokens then work only where they were minted. */
  secret?: string;
  now?: () => number;
}

const CLAIMS_LENGTH_LIMIT = 1_024;

/** The configured secret, refused (at start) when it is too short to sign with. */
export function checkStreamTokenSecret(secret: string): string {
  if (secret.length < MIN_STREAM_TOKEN_SECRET_LENGTH) {
    throw new Error(
      `SPINDLE_STREAM_TOKEN_SECRET must be at least ${MIN_STREAM_TOKEN_SECRET_LENGTH} characters (it has ${secret.length}); ` +
        'make one with: openssl rand -base64 48',
    );
  }
  return secret;
}

/** Mints and verifies stream tokens under one secret. Every refusal is `unauthenticated` and never repeats the token. */
export class StreamTokenSigner {
  private readonly secret: Buffer;
  private readonly now: () => number;

  constructor(opts: StreamTokenSignerOptions = {}) {
    if (opts.secret !== undefined) checkStreamTokenSecret(opts.secret);
    this.secret = opts.secret !== undefined ? Buffer.from(opts.secret, 'utf8') : randomBytes(32);
    this.now = opts.now ?? Date.now;
  }

  mint(subject: Omit<StreamTokenClaims, 'exp'>, ttlSeconds: number): MintedStreamToken {
    const exp = Math.floor(this.now() / 1000) + ttlSeconds;
    const claims = streamTokenClaimsSchema.parse({ ...subject, exp });
    const body = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
    return { token: `${STREAM_TOKEN_PREFIX}${body}.${this.sign(body).toString('base64url')}`, claims, expiresAt: new Date(exp * 1000) };
  }

  /** The claims of a token this secret signed and that has not expired. */
  verify(token: string): StreamTokenClaims {
    const [body, signature, ...rest] = token.startsWith(STREAM_TOKEN_PREFIX) ? token.slice(STREAM_TOKEN_PREFIX.length).split('.') : [];
    if (!body || !signature || rest.length > 0 || body.length > CLAIMS_LENGTH_LIMIT) throw refusal('is malformed');
    const given = Buffer.from(signature, 'base64url');
    const expected = this.sign(body);
    // Constant time: how long the comparison takes says nothing about how much of a forgery was right.
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refusal('has a signature that is not valid');
    const claims = streamTokenClaimsSchema.safeParse(parseJson(Buffer.from(body, 'base64url').toString('utf8')));
    if (!claims.success) throw refusal('is malformed');
    if (claims.data.exp * 1000 <= this.now()) throw refusal('has expired');
    return claims.data;
  }

  private sign(body: string): Buffer {
    return createHmac('sha256', this.secret).update(`${STREAM_TOKEN_PREFIX}${body}`).digest();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const refusal = (what: string) => new SpindleError('unauthenticated', `the stream token ${what}`);

/** The query parameter that carries a stream token. */
export const STREAM_TOKEN_PARAMETER = 'access_token';

const ACCESS_TOKEN_IN_QUERY = /([?&]access_token=)[^&#]*/gi;

/** A URL fit for a log line or a problem's `instance`: any `access_token` is `REDACTED`. */
export function redactAccessToken(url: string): string {
  return url.replace(ACCESS_TOKEN_IN_QUERY, '$1REDACTED');
}
