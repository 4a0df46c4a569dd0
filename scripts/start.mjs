#!/usr/bin/env node
// `npm start`: checks NATS and Postgres, builds what is stale, applies migrations, then runs the
// six services as separate processes with prefixed, readable logs. Ctrl-C stops them all.
// `npm start -- --json` keeps the raw JSON log lines.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { preflight } from './preflight.mjs';
import { prefixer } from './pretty-log.mjs';
import { defaults, services } from './services.mjs';

const env = {
  ...process.env,
  NATS_URL: process.env.NATS_URL ?? defaults.NATS_URL,
  DATABASE_URL: process.env.DATABASE_URL ?? defaults.DATABASE_URL,
  // The offline demo model streams a word every 30 ms, so token streaming is visible locally.
  SPINDLE_OFFLINE_CHUNK_DELAY_MS: process.env.SPINDLE_OFFLINE_CHUNK_DELAY_MS ?? '30',
  // The example plugins' tools (calculator, lookup_order), which the workflows in examples/ call.
  SPINDLE_PLUGINS: process.env.SPINDLE_PLUGINS ?? 'examples/plugins/calculator.js,examples/plugins/order-lookup.js',
  // First start: the gateway makes an admin key of the default tenant and writes it here (git-ignored).
  SPINDLE_BOOTSTRAP_KEY_FILE: process.env.SPINDLE_BOOTSTRAP_KEY_FILE ?? resolve('.spindle/admin-key'),
};
const keyExisted = existsSync(env.SPINDLE_BOOTSTRAP_KEY_FILE);
const raw = process.argv.includes('--json');

const problems = await preflight(env);
if (problems.length > 0) {
  console.error(`spindle: cannot start.\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}

console.log('spindle: building (incremental)…');
const build = spawnSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const consoleBuild = spawnSync('npx', ['vite', 'build', '--config', 'apps/console/vite.config.ts', '--logLevel', 'warn'], {
  stdio: 'inherit',
});
if (consoleBuild.status !== 0) process.exit(consoleBuild.status ?? 1);

console.log('spindle: applying migrations…');
const migrate = spawnSync(process.execPath, ['scripts/migrate.mjs'], { stdio: 'inherit', env });
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const width = Math.max(...services.map((s) => s.name.length));
const children = services.map((service, i) => {
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
console.log(`spindle: gateway on ${gatewayUrl} (NATS ${env.NATS_URL}, Postgres ${env.DATABASE_URL})`);

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

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  const force = setTimeout(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')), 10_000);
  Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once('exit', r))))).then(() => {
    clearTimeout(force);
    process.exit(code);
  });
}
process.on('SIGINT', () => stop(0));
void announceFirstKey();
process.on('SIGTERM', () => stop(0));

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
