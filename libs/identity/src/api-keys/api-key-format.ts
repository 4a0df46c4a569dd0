import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * An API key is `spk_<id>_<secret>`: the id finds the stored key (it is shown in lists, logs and
 * the audit trail), the secret proves possession and is stored only as its SHA-256. A 256-bit
 * random secret needs no slow hash: nobody can guess it, and the hash cannot be reversed.
 */
const KEY_PATTERN = /^spk_([a-z0-9]{16})_([A-Za-z0-9_-]{43})$/;
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export const API_KEY_PREFIX = 'spk_';

export interface NewApiKey {
  id: string;
  /** The whole key, shown once to whoever created it. */
  token: string;
  secretHash: string;
}

export function generateApiKey(): NewApiKey {
  const id = Array.from(randomBytes(16), (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
  const secret = randomBytes(32).toString('base64url');
  return { id, token: `${API_KEY_PREFIX}${id}_${secret}`, secretHash: hashSecret(secret) };
}

/** The key's id and secret, or `undefined` when the text is not shaped like a key. */
export function parseApiKey(token: string): { id: string; secret: string } | undefined {
  const match = KEY_PATTERN.exec(token);
  return match ? { id: match[1], secret: match[2] } : undefined;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Compares in constant time, so the time taken says nothing about how much of a guess was right. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/** A key's id: what logs, lists and the audit trail show instead of the key. */
export const API_KEY_ID_PATTERN = /^[a-z0-9]{16}$/;
