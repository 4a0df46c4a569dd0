import { createHash } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * A file's id: the same bytes uploaded by the same tenant are the same file (an upload is
 * idempotent), and another tenant's upload of them is another id, so an id says nothing about
 * what other tenants hold. 26 base32 letters of sha256(tenant \n sha256): 130 bits.
 */
export function fileIdOf(tenant: string, sha256: string): string {
  const digest = createHash('sha256').update(`${tenant}\n${sha256}`).digest();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
    if (out.length === 26) break;
  }
  return `file_${out}`;
}
