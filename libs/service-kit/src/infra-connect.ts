import { connectBus, provisionStreams, type Bus } from '@spindle/bus';
import { createDatabase, migrateToLatest, pingDatabase, serviceSchema } from '@spindle/db';
import type { Kysely, Migration } from 'kysely';
import type { ServiceConfig } from './service-config';

/** Connects to NATS and provisions the streams; a failure says where it looked and what to do. */
export async function connectInfraBus(config: ServiceConfig): Promise<Bus> {
  let bus: Bus;
  try {
    bus = await connectBus({ url: config.natsUrl, namespace: config.namespace, name: config.service, auth: config.natsAuth });
  } catch (e) {
    throw new Error(
      `${config.service}: cannot reach NATS at ${config.natsUrl} (NATS_URL): ${(e as Error).message}. ` +
        `Start NATS with JetStream (nats-server -js) or run: docker compose up -d nats`,
      { cause: e },
    );
  }
  try {
    await provisionStreams(bus, { replicas: config.streamReplicas, duplicateWindowMs: 120_000 });
  } catch (e) {
    await bus.close();
    throw new Error(
      `${config.service}: NATS at ${config.natsUrl} has no usable JetStream (${(e as Error).message}); start nats-server with -js`,
      { cause: e },
    );
  }
  return bus;
}

/** Opens the service's own schema and migrates it; a failure says where it looked and what to do. */
export async function connectInfraDatabase<DB>(
  config: ServiceConfig,
  schemaOwner: string,
  migrations: Record<string, Migration>,
): Promise<{ db: Kysely<DB>; schema: string }> {
  const schema = serviceSchema(schemaOwner, config.namespace);
  const db = createDatabase<DB>({ url: config.databaseUrl, schema });
  try {
    await pingDatabase(db as Kysely<unknown>);
  } catch (e) {
    await db.destroy();
    throw new Error(
      `${config.service}: cannot reach PostgreSQL at ${redact(config.databaseUrl)} (DATABASE_URL): ${(e as Error).message}. ` +
        `Start PostgreSQL 15 locally or run: docker compose up -d postgres`,
      { cause: e },
    );
  }
  await migrateToLatest(db as Kysely<unknown>, schema, migrations);
  return { db, schema };
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}
