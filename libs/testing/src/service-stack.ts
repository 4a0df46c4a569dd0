import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { connectBus, deleteStreams, type Bus, type BusAuth } from '@spindle/bus';
import { createDatabase, dropSchema, serviceSchema } from '@spindle/db';
import { freePort } from './free-port';
import { FakeOpenAIServer, type FakeOpenAIReply } from './fake-openai-server';
import { conformanceReport, OpenApiConformance, type OpenApiDocument } from './openapi-conformance';
import { ResponseRecorder } from './response-recorder';
import { readSse, type SseFrame } from './sse-client';
import { testEnv, testNamespace } from './test-infra';

const ROOT = resolve(__dirname, '../../..');

export interface ServiceProcess {
  name: string;
  /** `RUNNER_ID` given to the process (`<name>-<n>`): the worker id a runner writes into the log. */
  id: string;
  port: number;
  child: ChildProcess;
}

/** The five services as real processes in their own namespace, with a fake provider. */
export interface Stack {
  namespace: string;
  gatewayUrl: string;
  /** The admin key of the default tenant the gateway made on its first start (every scope). */
  adminKey: string;
  /** `{ authorization: 'Bearer <adminKey>' }`, to spread into a request's headers. */
  auth: Record<string, string>;
  /**
   * `fetch` against the gateway as the default tenant's admin, JSON content type on every state
   * change. Every response is recorded; `stop()` fails when one does not match `/v1/openapi.json`.
   */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** The gateway's OpenAPI document as a checker of responses (set once the gateway is up). */
  openApi?: OpenApiConformance;
  /** `readSse` against the gateway as the default tenant's admin. */
  sse(path: string, init?: RequestInit, onFrame?: (frame: SseFrame) => boolean | void): ReturnType<typeof readSse>;
  bus: Bus;
  fake: FakeOpenAIServer;
  processes: ServiceProcess[];
  env: Record<string, string>;
  startService(name: string, extraEnv?: Record<string, string>): Promise<ServiceProcess>;
  stop(): Promise<void>;
}

const PORT_VARIABLE: Record<string, string> = {
  gateway: 'PORT',
  runner: 'RUNNER_PORT',
  'trace-recorder': 'TRACE_RECORDER_PORT',
  checkpoint: 'CHECKPOINT_PORT',
  approval: 'APPROVAL_PORT',
  dispatcher: 'DISPATCHER_PORT',
};

/** The services besides the gateway and the runners, started after the gateway (which writes the first admin key). */
export const BACKGROUND_SERVICES = ['trace-recorder', 'checkpoint', 'approval', 'dispatcher'] as const;

/** The services that read the control plane's settings (quotas, dispatch window, webhooks): give both the same. */
export const readsControlPlaneSettings = (service: string): boolean => service === 'gateway' || service === 'dispatcher';

export interface StackOptions {
  runners?: number;
  runnerEnv?: Record<string, string>;
  reply?: (body: unknown) => FakeOpenAIReply;
  namespacePrefix?: string;
  /** A namespace of the caller's (its NATS permissions may name it); else a fresh one. */
  namespace?: string;
  logLevel?: string;
  /** NATS and Postgres of the caller's own (a chaos run kills and restarts them); else the test ones. */
  infra?: { natsUrl: string; databaseUrl: string };
  /** Extra environment per service (its NATS credentials, say). */
  serviceEnv?: (service: string) => Record<string, string>;
  /** Extra Node options per service (`--cpu-prof`, which NODE_OPTIONS does not take). */
  nodeArgs?: (service: string) => string[];
  /** How the stack's own client signs in to NATS. */
  busAuth?: BusAuth;
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const namespace = opts.namespace ?? testNamespace(opts.namespacePrefix ?? 'e');
  const { natsUrl, databaseUrl } = opts.infra ?? testEnv();
  const fake = new FakeOpenAIServer(opts.reply as never);
  await fake.start();
  const logDir = join(ROOT, 'tmp', 'e2e-logs', namespace);
  mkdirSync(logDir, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    NATS_URL: natsUrl,
    DATABASE_URL: databaseUrl,
    SPINDLE_NAMESPACE: namespace,
    HOST: '127.0.0.1',
    LOG_LEVEL: opts.logLevel ?? 'info',
    OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
    SSE_HEARTBEAT_MS: '1000',
    // The gateway's first start writes an admin key here (as `npm start` does).
    SPINDLE_BOOTSTRAP_KEY_FILE: join(logDir, 'admin-key'),
  };
  const processes: ServiceProcess[] = [];
  let instance = 0;
  const startService = async (name: string, extraEnv: Record<string, string> = {}) => {
    // A restart may ask for the port it had (`{ PORT: '…' }`), so clients keep their address.
    const asked = extraEnv[PORT_VARIABLE[name]];
    const port = asked !== undefined ? Number(asked) : await freePort();
    const id = `${name}-${++instance}`;
    const logFile = createWriteStream(join(logDir, `${id}.log`));
    const child = spawn(process.execPath, [...(opts.nodeArgs?.(name) ?? []), join(ROOT, 'apps', name, 'dist', 'main.js')], {
      cwd: ROOT,
      env: { ...env, ...opts.serviceEnv?.(name), [PORT_VARIABLE[name]]: String(port), RUNNER_ID: id, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(logFile);
    child.stderr?.pipe(logFile);
    const service = { name, id, port, child };
    processes.push(service);
    await waitReady(service, logDir);
    return service;
  };

  const bus = await connectBus({ url: natsUrl, namespace, name: 'e2e', auth: opts.busAuth });
  const recorder = new ResponseRecorder();
  const stack: Stack = {
    namespace,
    gatewayUrl: '',
    adminKey: '',
    auth: {},
    api: async (path, init) => {
      const res = await fetch(`${stack.gatewayUrl}${path}`, {
        ...init,
        headers: {
          ...(init?.method && init.method !== 'GET' && init.method !== 'HEAD' ? { 'content-type': 'application/json' } : {}),
          ...stack.auth,
          ...(init?.headers as Record<string, string> | undefined),
        },
      });
      recorder.record(init?.method ?? 'GET', path, res);
      return res;
    },
    sse: (path, init = {}, onFrame) =>
      readSse(
        `${stack.gatewayUrl}${path}`,
        {
          ...init,
          headers: {
            ...(init.method && init.method !== 'GET' ? { 'content-type': 'application/json' } : {}),
            ...stack.auth,
            ...(init.headers as Record<string, string> | undefined),
          },
        },
        onFrame,
      ),
    bus,
    fake,
    processes,
    env,
    startService,
    async stop() {
      await Promise.all(processes.map((p) => stopProcess(p.child)));
      await deleteStreams(bus).catch(() => undefined);
      await bus.close();
      const db = createDatabase({ url: databaseUrl, schema: 'public', maxConnections: 1 });
      for (const owner of ['gateway', 'trace', 'checkpoint', 'approval']) await dropSchema(db, serviceSchema(owner, namespace));
      await db.destroy();
      await fake.stop();
      const mismatches = stack.openApi?.mismatchesOf(await recorder.responses()) ?? [];
      if (mismatches.length > 0) throw new Error(conformanceReport(mismatches));
    },
  };
  try {
    const gateway = await startService('gateway');
    stack.gatewayUrl = `http://127.0.0.1:${gateway.port}`;
    stack.adminKey = readFileSync(env.SPINDLE_BOOTSTRAP_KEY_FILE, 'utf8').trim();
    stack.auth = { authorization: `Bearer ${stack.adminKey}` };
    stack.openApi = new OpenApiConformance((await (await fetch(`${stack.gatewayUrl}/v1/openapi.json`)).json()) as OpenApiDocument);
    await Promise.all(BACKGROUND_SERVICES.map((s) => startService(s)));
    for (let i = 0; i < (opts.runners ?? 1); i++) await startService('runner', opts.runnerEnv);
  } catch (e) {
    await stack.stop();
    throw e;
  }
  return stack;
}

async function waitReady(service: ServiceProcess, logDir: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) throw new Error(`${service.name} exited with ${service.child.exitCode}; see ${logDir}`);
    try {
      const res = await fetch(`http://127.0.0.1:${service.port}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${service.name} was not ready within 30 s; see ${logDir}`);
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveExit) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolveExit();
    });
    child.kill(signal);
  });
}
