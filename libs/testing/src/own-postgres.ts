import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

/**
 * A PostgreSQL server of a test's or the chaos run's own (the machine's binaries, a temporary
 * cluster, a free port), so it can be stopped or killed and started again without touching the
 * machine's. Undefined where it cannot run here (no binaries, or root without a postgres user).
 */
export interface OwnPostgres {
  readonly url: string;
  /** SIGKILL of the postmaster alone, as after a crash. */
  kill(): Promise<void>;
  /**
   * `pg_ctl stop -m fast` (SIGINT to the postmaster): every session is terminated with 57P01 and
   * the server shuts down cleanly, as in a managed database's failover or restart.
   */
  stopFast(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres | undefined> {
  const bin = postgresBin();
  if (!bin) return undefined;
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'spindle-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const run = (cmd: string, args: string[]) =>
    (asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]) as [string, string[]];
  try {
    if (asRoot) chownSync(dir, uid('postgres'), gid('postgres'));
    execFileSync(...run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']), { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  let child: ChildProcess | undefined;
  const halt = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      // As root the child is `runuser`, which does not pass signals on: signal the postmaster itself.
      const postmaster = postmasterPid(data);
      if (postmaster !== undefined) process.kill(postmaster, signal);
      else running.kill(signal);
    });
  };
  const server: OwnPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async kill() {
      await halt('SIGKILL');
      // Shared memory of the killed postmaster is cleaned up when its backends exit.
      await new Promise((r) => setTimeout(r, 300));
    },
    async stopFast() {
      await halt('SIGINT');
    },
    async start() {
      if (child) return;
      const [cmd, args] = run(join(bin, 'postgres'), [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
      ]);
      child = spawn(cmd, args, { stdio: 'ignore' });
      await untilAccepting(port, child);
    },
    async stop() {
      await server.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/** The first line of `postmaster.pid` in the data directory, while the server runs. */
function postmasterPid(data: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort().at(-1);
  const bin = version && join(root, version, 'bin');
  return bin && existsSync(join(bin, 'initdb')) ? bin : undefined;
}

function uid(user: string): number {
  return Number(execFileSync('id', ['-u', user]).toString().trim());
}

function gid(user: string): number {
  return Number(execFileSync('id', ['-g', user]).toString().trim());
}

async function untilAccepting(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}`);
    try {
      execFileSync('pg_isready', ['-h', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`postgres did not accept connections on ${port} within 30 s`);
}
