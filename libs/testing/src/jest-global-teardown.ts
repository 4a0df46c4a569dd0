import type { TestInfra } from './test-infra';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __spindleInfra?: TestInfra }).__spindleInfra?.stop();
}
