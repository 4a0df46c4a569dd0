import { setTimeout as sleep } from 'node:timers/promises';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import type { NatsServerProcess, Stack } from '@spindle/testing';
import type { ChaosDriver, DrivenRun } from './chaos-driver';
import type { RoundResult } from './chaos-rounds';

/** The chaos nats-server's store limit: room for the run's own data many times over, quick to fill. */
export const CHAOS_MAX_FILE_STORE = '64MB';

/**
 * The JetStream store filled under the load (a stream of the operator's takes the room) and held
 * full for `holdMs`; then the room is given back. While full a start must be refused at once with
 * `507 storage_full` and the gateway must say it is not ready; the runs in flight are checked with
 * the others afterwards (none may fail with `storage_full`).
 */
export async function storeFullRound(
  driver: ChaosDriver,
  stack: Stack,
  opts: { holdMs: number; tagPrefix: string; slowMarker: string },
  allReady: () => Promise<void>,
): Promise<RoundResult> {
  // Runs of its own that outlive the fill, so appends meet the full store.
  const own = await Promise.all(
    Array.from({ length: 6 }, (_, i) => driver.startRun('chaos-chain', `${opts.tagPrefix}${opts.slowMarker}-full-${i}`)),
  );
  await sleep(500);
  const inFlight = [...new Set([...driver.inFlight(), ...own].map((r) => r.runId))];
  const filler = `${stack.namespace}_filler`;
  await stack.bus.jsm.streams.add({ name: filler, subjects: [`${filler}.>`] });
  const js = jetstream(stack.bus.nc);
  const block = new Uint8Array(256 * 1024);
  for (let i = 0; i < 1_000; i++) {
    const full = await js.publish(`${filler}.x`, block).then(
      () => false,
      (e: unknown) => /insufficient resources/.test(String((e as Error).message)),
    );
    if (full) break;
  }
  const violations: string[] = [];
  const start = await fetch(`${stack.gatewayUrl}/v1/workflows/chaos-chain/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...stack.auth },
    body: JSON.stringify({ input: { tag: `${opts.tagPrefix}-while-full` } }),
  });
  const answer = (await start.json().catch(() => ({}))) as { code?: string; runId?: string };
  if (start.status !== 507 || answer.code !== 'storage_full')
    violations.push(`a start while full answered ${start.status} ${answer.code ?? ''}`);
  if (answer.runId)
    driver.adopt({ runId: answer.runId, workflow: 'chaos-chain', tag: `${opts.tagPrefix}-while-full`, answer: false, cancel: false });
  const readiness = await fetch(`${stack.gatewayUrl}/readyz`).then((r) => r.status);
  if (readiness !== 503) violations.push(`the gateway's /readyz answered ${readiness} while the store was full`);
  await sleep(opts.holdMs);
  await stack.bus.jsm.streams.delete(filler);
  const began = Date.now();
  await allReady();
  return {
    inFlight,
    recoverySeconds: (Date.now() - began) / 1_000,
    checks: { label: `full for ${opts.holdMs / 1_000} s: a start refused 507, gateway not ready`, violations },
  };
}

/**
 * The last phase, after every other run was checked: nats-server stopped, its store removed, started
 * again, with `inFlight` runs just started. Every log is gone by design: every run started before
 * (ended or in flight) must answer `410 run_log_lost`, twice, and new runs must run; they are
 * returned so they are checked like the others.
 */
export async function storeWipedPhase(
  driver: ChaosDriver,
  stack: Stack,
  nats: NatsServerProcess,
  opts: { inFlight: number; after: number; tagPrefix: string; slowMarker: string },
  allReady: () => Promise<void>,
): Promise<RoundResult & { newRuns: DrivenRun[] }> {
  const before = [...driver.runs.values()];
  const inFlight = await Promise.all(
    Array.from({ length: opts.inFlight }, (_, i) => driver.startRun('chaos-chain', `${opts.tagPrefix}${opts.slowMarker}-lost-${i}`)),
  );
  await sleep(1_000);
  await nats.kill('SIGTERM');
  rmSync(join(nats.storeDir, 'js'), { recursive: true, force: true });
  await nats.start();
  const began = Date.now();
  await allReady();
  const recoverySeconds = (Date.now() - began) / 1_000;
  const lost = [...before, ...inFlight];
  // Their logs are gone: this phase accounts for them, the driver no longer waits for them.
  for (const run of inFlight) run.settled = true;
  const violations = await lostRuns(stack, lost);
  const newRuns = await Promise.all(
    Array.from({ length: opts.after }, (_, i) =>
      driver.startRun(['chaos-chain', 'chaos-fork', 'chaos-loop', 'chaos-agent'][i % 4], `${opts.tagPrefix}-after-${i}`),
    ),
  );
  if (!(await driver.settle(60_000))) violations.push('the runs started after the wipe did not all settle');
  violations.push(...(await lostRuns(stack, lost)));
  return {
    inFlight: [],
    recoverySeconds,
    newRuns,
    checks: {
      label: `${lost.length} runs answer 410 run_log_lost (${inFlight.length} were in flight); ${newRuns.length} new runs`,
      violations,
    },
  };
}

/** Every run whose log went with the store answers `410 run_log_lost`, on its read and its event stream. */
async function lostRuns(stack: Stack, runs: readonly DrivenRun[]): Promise<string[]> {
  const violations: string[] = [];
  for (const run of runs) {
    for (const path of [`/v1/runs/${run.runId}`, `/v1/runs/${run.runId}/events`]) {
      const accept = path.endsWith('events') ? 'text/event-stream' : 'application/json';
      // A stream answered 200 would never end: bounded.
      const res = await fetch(`${stack.gatewayUrl}${path}`, { headers: { ...stack.auth, accept }, signal: AbortSignal.timeout(10_000) });
      const body = (await res.json().catch(() => ({}))) as { code?: string };
      if (res.status !== 410 || body.code !== 'run_log_lost')
        violations.push(`${path} of a run whose log was wiped answered ${res.status} ${body.code ?? ''}`);
    }
  }
  return violations;
}
