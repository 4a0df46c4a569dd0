import net from 'node:net';

/** Checks NATS and Postgres answer on TCP; returns human-readable problems (empty when fine). */
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
    },
  ];
  for (const c of checks) {
    const { hostname, port } = new URL(c.url);
    const ok = await reachable(hostname || '127.0.0.1', Number(port || c.port));
    if (!ok)
      problems.push(`${c.what} is not reachable at ${c.url} (${c.variable}). To fix: ${c.fix}, or point ${c.variable} at a running one.`);
  }
  return problems;
}

function reachable(host, port) {
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
