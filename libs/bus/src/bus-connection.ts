import { connect, credsAuthenticator, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { busNames, type BusNames } from '@spindle/contracts';

/** One NATS connection with its JetStream handles and the namespace's names. */
export interface Bus {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly names: BusNames;
  close(): Promise<void>;
}

export interface BusOptions {
  url: string;
  namespace?: string;
  /** Connection name shown by the server (`nats server report connections`). */
  name: string;
  /** How long to keep trying at start-up before giving up. */
  connectTimeoutMs?: number;
  /** How long `close()` may drain before it closes the connection outright. */
  closeTimeoutMs?: number;
  /** Credentials: user and password, a token, or a `.creds` file's contents (NATS_USER/NATS_PASSWORD, NATS_TOKEN, NATS_CREDS). */
  auth?: BusAuth;
  /** TLS to NATS: the CA that signed the server's certificate, and a client certificate and key for mutual TLS (files). */
  tls?: BusTls;
}

export interface BusTls {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

export type BusAuth = { user: string; pass: string } | { token: string } | { creds: string };

export async function connectBus(opts: BusOptions): Promise<Bus> {
  const nc = await connect({
    servers: opts.url,
    name: opts.name,
    timeout: opts.connectTimeoutMs ?? 5_000,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // The client otherwise builds an Error (a stack capture) for every request and publish ack in
    // case it times out: a top frame of the gateway's profile on the start path. Bus faults carry
    // their own context (`asBusFault`), so the captured trace is not needed.
    noAsyncTraces: true,
    ...authOptions(opts.auth),
    ...(opts.tls ? { tls: opts.tls } : {}),
  });
  const jsm = await jetstreamManager(nc, { timeout: 10_000 });
  const js = jetstream(nc, { timeout: 10_000 });
  return {
    nc,
    js,
    jsm,
    names: busNames(opts.namespace ?? ''),
    async close() {
      if (nc.isClosed()) return;
      // Draining needs the server; a connection that cannot reach it is closed instead of waiting.
      const drained = nc.drain().then(
        () => true,
        () => false,
      );
      const timedOut = new Promise<false>((resolve) => setTimeout(() => resolve(false), opts.closeTimeoutMs ?? 3_000).unref());
      if (!(await Promise.race([drained, timedOut]))) await nc.close().catch(() => undefined);
    },
  };
}

function authOptions(auth: BusAuth | undefined): Partial<ConnectionOptions> {
  if (!auth) return {};
  if ('creds' in auth) return { authenticator: credsAuthenticator(new TextEncoder().encode(auth.creds)) };
  if ('token' in auth) return { token: auth.token };
  return { user: auth.user, pass: auth.pass };
}

/** Calls `listener` each time the connection is re-established after a loss, until stopped or closed. */
/** Whether the connection to NATS is closed for good (not merely reconnecting). */
export function isBusClosed(bus: Bus): boolean {
  return bus.nc.isClosed();
}

export function onReconnect(bus: Bus, listener: () => void): () => void {
  let stopped = false;
  void (async () => {
    for await (const status of bus.nc.status()) {
      if (stopped) return;
      if (status.type === 'reconnect') listener();
    }
  })();
  return () => {
    stopped = true;
  };
}

/** A JetStream round trip (readiness): fails when the server or JetStream does not answer. */
export async function pingJetStream(bus: Bus): Promise<void> {
  await bus.jsm.getAccountInfo();
}
