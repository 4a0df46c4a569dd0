import { performance } from 'node:perf_hooks';
import { Authenticator, ApiKeyVerifier, generateApiKey } from '@spindle/identity';
import { stopProcess, type Stack } from '@spindle/testing';
import { median } from './stats';

export interface AuthOverhead {
  /** p50 of the same read through a gateway with authentication and one without, and the difference. */
  withAuthMsP50: number;
  withoutAuthMsP50: number;
  overheadMsP50: number;
  /** The key check alone, in process, once its key is cached: median µs. */
  keyCheckUs: number;
}

/**
 * What authentication costs a request: the same read (`GET /v1/workflows`) through the stack's
 * gateway with its admin key and through a second gateway of the same stack with authentication
 * off, interleaved so both see the same machine. And the API key check alone, in process.
 */
export async function measureAuthOverhead(stack: Stack, samples = 2_000): Promise<AuthOverhead> {
  const open = await stack.startService('gateway', { SPINDLE_AUTH: 'off', SPINDLE_BOOTSTRAP_KEY_FILE: '' });
  try {
    const without = `http://127.0.0.1:${open.port}/v1/workflows`;
    const withAuth = `${stack.gatewayUrl}/v1/workflows`;
    const timed = async (url: string, headers: Record<string, string>) => {
      const began = performance.now();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
      return performance.now() - began;
    };
    // Warm both (connections, caches, JIT) before measuring.
    for (let i = 0; i < 200; i++) await Promise.all([timed(withAuth, stack.auth), timed(without, {})]);
    const on: number[] = [];
    const off: number[] = [];
    for (let i = 0; i < samples; i++) {
      on.push(await timed(withAuth, stack.auth));
      off.push(await timed(without, {}));
    }
    const withAuthMsP50 = median(on);
    const withoutAuthMsP50 = median(off);
    return { withAuthMsP50, withoutAuthMsP50, overheadMsP50: withAuthMsP50 - withoutAuthMsP50, keyCheckUs: await keyCheckUs() };
  } finally {
    await stopProcess(open.child);
    stack.processes.splice(stack.processes.indexOf(open), 1);
  }
}

async function keyCheckUs(rounds = 50_000): Promise<number> {
  const made = generateApiKey();
  const stored = { id: made.id, name: 'bench', tenant: 'default', operator: false, scopes: ['runs:read' as const] };
  const keys = new ApiKeyVerifier({
    find: async () => ({ ...stored, secretHash: made.secretHash, expiresAt: null, revokedAt: null }),
    touch: () => undefined,
  });
  const authenticator = new Authenticator({ keys, tenant: async () => ({ operator: false }) });
  const header = `Bearer ${made.token}`;
  await authenticator.authenticate(header);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const began = performance.now();
    await authenticator.authenticate(header);
    times.push((performance.now() - began) * 1_000);
  }
  return median(times);
}
