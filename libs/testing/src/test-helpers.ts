import { connectBus, deleteStreams, type Bus } from '@spindle/bus';
import { createDatabase, dropSchema, migrateToLatest, serviceSchema } from '@spindle/db';
import type { Kysely, Migration } from 'kysely';
import { testEnv } from './test-infra';

/** Retries `check` until it stops throwing (bounded), for effects that land asynchronously. */
export async function eventually<T>(check: () => Promise<T>, attempts = 100, pauseMs = 50): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await check();
    } catch (e) {
      if (i >= attempts) throw e;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}

/** A client of the namespace's streams on the test NATS. */
export function testBus(namespace: string, name: string): Promise<Bus> {
  return connectBus({ url: testEnv().natsUrl, namespace, name });
}

/** Deletes the namespace's streams (a suite's clean-up). */
export async function removeStreams(namespace: string): Promise<void> {
  const bus = await testBus(namespace, `${namespace}-cleanup`);
  try {
    await deleteStreams(bus);
  } finally {
    await bus.close();
  }
}

/** A service's schema migrated for one test file (`owner` names it within the namespace), and how to drop it again. */
export async function openTestSchema<DB>(
  owner: string,
  namespace: string,
  migrations: Record<string, Migration>,
  maxConnections?: number,
): Promise<{ db: Kysely<DB>; drop(): Promise<void> }> {
  const schema = serviceSchema(owner, namespace);
  const db = createDatabase<DB>({ url: testEnv().databaseUrl, schema, ...(maxConnections ? { maxConnections } : {}) });
  await migrateToLatest(db as Kysely<unknown>, schema, migrations);
  return {
    db,
    async drop() {
      await dropSchema(db as Kysely<unknown>, schema);
      await db.destroy();
    },
  };
}

/**
 * A gate a fake provider's reply waits at while a test holds it: so a test sees a run mid-call,
 * then lets it go on (never racing the system under test). Open until `hold()`.
 */
export function providerGate() {
  let held: Promise<void> | undefined;
  let open = (): void => undefined;
  return {
    /** Closes it: replies from now on wait until `release()`. */
    hold: () => {
      held = new Promise<void>((resolve) => (open = resolve));
    },
    release: () => open(),
    /** What a reply awaits. */
    passed: () => held,
  };
}
