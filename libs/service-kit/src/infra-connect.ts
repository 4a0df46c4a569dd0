import { connectBus, provisionStreams, type Bus } from '@spindle/bus';
import type { ServiceConfig } from './service-config';

/** Connects to NATS and provisions the streams; a failure says where it looked and what to do. */
export async function connectInfraBus(config: ServiceConfig): Promise<Bus> {
  let bus: Bus;
  try {
    bus = await connectBus({
      url: config.natsUrl,
      namespace: config.namespace,
      name: config.service,
      auth: config.natsAuth,
      tls: config.natsTls,
    });
  } catch (e) {
    throw new Error(
      `${config.service}: cannot reach NATS at ${config.natsUrl} (NATS_URL): ${(e as Error).message}. ` +
        `Start NATS with JetStream (nats-server -js) or run: docker compose up -d nats`,
      { cause: e },
    );
  }
  try {
    await provisionStreams(bus, { replicas: config.streamReplicas, duplicateWindowMs: 120_000, retentionMs: config.retentionMs });
  } catch (e) {
    await bus.close();
    throw new Error(
      `${config.service}: NATS at ${config.natsUrl} has no usable JetStream (${(e as Error).message}); start nats-server with -js`,
      { cause: e },
    );
  }
  return bus;
}
