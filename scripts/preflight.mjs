import { createRequire } from 'node:module';
import net from 'node:net';
import { maskUrl, portOccupant, portProblems, postgresProblem } from './start-plan.mjs';
import { services } from './services.mjs';

const require = createRequire(import.meta.url);

/** Checks NATS and Postgres answer (and the database exists); returns human-readable problems, one line each (empty when fine). */
export async function preflight(env) {
  const problems = [];
  const checks = [
    {
      what: 'NATS (with JetStream)',
      variable: 'NATS_URL',
      url: env.NATS_URL,
      port: 4222,
      fix: 'start it with `nats-server -js` (Debian: apt-get install nats-server) or `docker compose up -d nats`',
    },
    {
      what: 'PostgreSQL',
      variable: 'DATABASE_URL',
      url: env.DATABASE_URL,
      port: 5432,
      fix: 'start PostgreSQL 15 (Debian: pg_ctlcluster 15 main start) or `docker compose up -d postgres`',
      answered: () => postgresConnects(env.DATABASE_URL),
    },
  ];
  for (const c of checks) {
    const { hostname, port } = new URL(c.url);
    const ok = await reachable(hostname || '127.0.0.1', Number(port || c.port));
    if (!ok) {
      problems.push(
        `${c.what} is not reachable at ${maskUrl(c.url)} (${c.variable}). To fix: ${c.fix}, or point ${c.variable} at a running one.`,
      );
      continue;
    }
    const problem = await c.answered?.();
    if (problem) problems.push(problem);
  }
  return problems;
}

/** The service ports `npm start` would bind that something already holds, one line each (empty when all are free). */
export async function portsInUse(env) {
  const ports = [];
  for (const service of services) {
    const port = Number(env[service.port] ?? service.defaultPort);
    ports.push({ service: service.name, variable: service.port, port, occupant: await occupantOf(port) });
  }
  return portProblems(ports);
}

/** Null when Postgres accepts a connection to the database the URL names, else one line saying why not. */
async function postgresConnects(url) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    return null;
  } catch (error) {
    return postgresProblem(url, error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function occupantOf(port) {
  const listening = await reachable('127.0.0.1', port);
  if (!listening) return portOccupant(false);
  const health = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) })
    .then((r) => (r.ok ? r.json() : undefined))
    .catch(() => undefined);
  return portOccupant(true, health);
}

export function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
