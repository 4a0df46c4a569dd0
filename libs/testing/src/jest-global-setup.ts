import { resolveTestInfra, type TestInfra } from './test-infra';

/** Jest globalSetup: resolves NATS and Postgres once; workers inherit the URLs through env. */
export default async function globalSetup(): Promise<void> {
  const infra = await resolveTestInfra();
  process.env.NATS_URL = infra.natsUrl;
  process.env.DATABASE_URL = infra.databaseUrl;
  (globalThis as { __spindleInfra?: TestInfra }).__spindleInfra = infra;
}
