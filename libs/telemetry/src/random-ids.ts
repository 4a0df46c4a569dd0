import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = POOL_BYTES;

/**
 * `bytes` random bytes as hex (span ids: 8, correlation ids: 6), from a pool filled 4 KiB at a
 * time: one `randomBytes` call per id was a top frame of the runner's profile.
 */
export function randomHexId(bytes: number): string {
  if (offset + bytes > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(Math.max(POOL_BYTES, bytes)));
    offset = 0;
  }
  const id = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return id;
}
