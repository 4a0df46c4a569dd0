import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

/**
 * A nats-server of the test's own (JetStream, a temporary store, a free port), which the test
 * may kill and start again on the same port and store: what a NATS restart looks like to the
 * services. Uses the machine's `nats-server` (`NATS_SERVER_BIN`, else /usr/sbin/nats-server).
 */
export interface NatsServerProcess {
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  /** Kills the server (SIGKILL by default) and waits for it to be gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and store; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Kills it and removes its store. */
  stop(): Promise<void>;
}

export interface NatsServerOptions {
  /** Extra server configuration (nats-server config syntax), e.g. `authorization { … }`. */
  config?: string;
  port?: number;
  /** JetStream's file store limit (`max_file_store`, e.g. `8MB`): past it, writes are refused for room. */
  maxFileStore?: string;
}

export function natsServerBinary(): string {
  return process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
}

export function hasNatsServerBinary(): boolean {
  return existsSync(natsServerBinary());
}

export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServerProcess> {
  const port = opts.port ?? (await freePort());
  const storeDir = mkdtempSync(join(tmpdir(), 'spindle-nats-'));
  const configFile = join(storeDir, 'nats.conf');
  const limit = opts.maxFileStore ? `, max_file_store: ${opts.maxFileStore}` : '';
  writeFileSync(
    configFile,
    `listen: 127.0.0.1:${port}\njetstream { store_dir: "${join(storeDir, 'js')}"${limit} }\n${opts.config ?? ''}\n`,
  );
  let child: ChildProcess | undefined;
  const server: NatsServerProcess = {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async kill(signal = 'SIGKILL') {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill(signal);
      });
    },
    async start() {
      if (child) return;
      child = spawn(natsServerBinary(), ['-c', configFile], { stdio: 'ignore' });
      await waitForPort(port, child);
    },
    async stop() {
      await server.kill();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode} before accepting connections`);
    if (await accepts(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server did not accept connections on port ${port} within 15 s`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
