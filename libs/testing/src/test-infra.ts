import net from 'node:net';
import { randomBytes } from 'node:crypto';

export interface TestInfra {
  natsUrl: string;
  databaseUrl: string;
  /** Stops containers this process started; a no-op for services the environment provides. */
  stop(): Promise<void>;
}

const DEFAULT_NATS = 'nats://127.0.0.1:4222';
const DEFAULT_DATABASE = 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Real NATS and Postgres for tests: the ones named by NATS_URL / DATABASE_URL (or the local
 * defaults) when reachable, else containers started with Testcontainers. Without Docker and
 * without local services, says so plainly.
 */
export async function resolveTestInfra(env: Record<string, string | undefined> = process.env): Promise<TestInfra> {
  const natsUrl = env.NATS_URL ?? DEFAULT_NATS;
  const databaseUrl = env.DATABASE_URL ?? DEFAULT_DATABASE;
  const [natsUp, pgUp] = await Promise.all([reachable(natsUrl, 4222), reachable(databaseUrl, 5432)]);
  if (natsUp && pgUp) return { natsUrl, databaseUrl, stop: async () => undefined };
  return startContainers({ natsUrl: natsUp ? natsUrl : undefined, databaseUrl: pgUp ? databaseUrl : undefined });
}

async function startContainers(have: { natsUrl?: string; databaseUrl?: string }): Promise<TestInfra> {
  const stops: Array<() => Promise<unknown>> = [];
  try {
    let natsUrl = have.natsUrl;
    if (!natsUrl) {
      const { NatsContainer } = await import('@testcontainers/nats');
      const nats = await new NatsContainer('nats:2.10-alpine').withJetStream().start();
      stops.push(() => nats.stop());
      natsUrl = `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
    }
    let databaseUrl = have.databaseUrl;
    if (!databaseUrl) {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const pg = await new PostgreSqlContainer('postgres:15-alpine').start();
      stops.push(() => pg.stop());
      databaseUrl = pg.getConnectionUri();
    }
    return { natsUrl, databaseUrl, stop: async () => void (await Promise.all(stops.map((s) => s()))) };
  } catch (e) {
    await Promise.all(stops.map((s) => s().catch(() => undefined)));
    throw new Error(
      `Tests need NATS with JetStream and PostgreSQL. None reachable at ${have.natsUrl ? '' : `NATS_URL (${DEFAULT_NATS}) `}` +
        `${have.databaseUrl ? '' : `DATABASE_URL (${DEFAULT_DATABASE}) `}` +
        `and containers could not start (${(e as Error).message.split('\n')[0]}). ` +
        `Start them locally (nats-server -js; PostgreSQL 15) or run: docker compose up -d nats postgres`,
    );
  }
}

export function reachable(url: string, defaultPort: number, timeoutMs = 1_000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname || '127.0.0.1', port: Number(port || defaultPort) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A fresh lower-case namespace: its own streams, subjects and database schemas. */
export function testNamespace(prefix = 't'): string {
  return `${prefix}${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

export function testEnv(): { natsUrl: string; databaseUrl: string } {
  return { natsUrl: process.env.NATS_URL ?? DEFAULT_NATS, databaseUrl: process.env.DATABASE_URL ?? DEFAULT_DATABASE };
}
