import { connect, type NatsConnection } from '@nats-io/transport-node';
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
}

export async function connectBus(opts: BusOptions): Promise<Bus> {
  const nc = await connect({
    servers: opts.url,
    name: opts.name,
    timeout: opts.connectTimeoutMs ?? 5_000,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
  const jsm = await jetstreamManager(nc, { timeout: 10_000 });
  const js = jetstream(nc, { timeout: 10_000 });
  return {
    nc,
    js,
    jsm,
    names: busNames(opts.namespace ?? ''),
    async close() {
      if (!nc.isClosed()) await nc.drain();
    },
  };
}
