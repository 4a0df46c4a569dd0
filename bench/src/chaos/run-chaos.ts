import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { natsAuthorizationConfig, readRunLog, type Bus, type SpindleService } from '@spindle/bus';
import { busNames } from '@spindle/contracts';
import {
  recordedFigures,
  startNatsServer,
  startOwnPostgres,
  startStack,
  stopProcess,
  testEnv,
  testNamespace,
  type NatsServerProcess,
  type OwnPostgres,
  type ServiceProcess,
  type Stack,
} from '@spindle/testing';
import { callsByKey, checkRun, type RunFindings } from './chaos-checks';
import { ChaosDriver, type DrivenRun } from './chaos-driver';
import { renderReport, type TargetResult } from './chaos-report';
import { keyedRound, sseRound, SLOW_MARKER } from './chaos-rounds';
import { CHAOS_MAX_FILE_STORE, storeFullRound, storeWipedPhase } from './chaos-store';
import { chaosProvider, chaosWorkflows, type ProviderCall } from './chaos-workflows';

/**
 * `npm run chaos` (and `-- --short` in CI): the stack as separate processes (2 runners) on a
 * NATS and, where it can, a PostgreSQL of the run's own, with per-service NATS credentials and
 * a fake provider with latency. Under a mixed load it kills each process with SIGKILL in turn —
 * a runner, the recorder, checkpoint, approval, the gateway, nats-server, PostgreSQL — and starts
 * it again; then checks every run (chaos-checks.ts), prints a table, and exits non-zero on any
 * violation. The full run writes the table to docs/reliability.md.
 */
const short = process.argv.includes('--short');
const ROOT = join(__dirname, '../../..');

type Target =
  | 'runner'
  | 'runner-frozen'
  | 'trace-recorder'
  | 'checkpoint'
  | 'approval'
  | 'dispatcher'
  | 'gateway'
  | 'gateway-sse'
  | 'gateway-keyed'
  | 'nats-server'
  | 'postgres'
  | 'postgres-stop'
  | 'nats-store-full';
const TARGETS: Target[] = short
  ? [
      'runner',
      'gateway-sse',
      'trace-recorder',
      'dispatcher',
      'nats-server',
      'gateway',
      'postgres-stop',
      'gateway-sse',
      'nats-store-full',
      'runner-frozen',
      'gateway-keyed',
    ]
  : [
      'runner',
      'gateway-sse',
      'trace-recorder',
      'checkpoint',
      'approval',
      'dispatcher',
      'gateway',
      'gateway-sse',
      'nats-server',
      'postgres',
      'postgres-stop',
      'nats-store-full',
      'gateway-keyed',
      'runner-frozen',
      'gateway-sse',
    ];
/** The SSE round: runs followed, followers per run (150 in all); the gateway's stream limits are raised to fit. */
const SSE_RUNS = 30;
const SSE_FOLLOWERS_PER_RUN = 5;
/** How long Postgres stays stopped (`pg_ctl stop -m fast`, as in a failover) before it starts again. */
const POSTGRES_OUTAGE_MS = short ? 10_000 : 30_000;

async function main() {
  const namespace = testNamespace('chaos');
  const names = busNames(namespace);
  const password = (service: string) => `chaos-${service}-secret`;
  const nats = await startNatsServer({
    maxFileStore: CHAOS_MAX_FILE_STORE,
    config: natsAuthorizationConfig(names, (s) => JSON.stringify(password(s)), [
      { user: 'chaos-driver', password: JSON.stringify(password('driver')) },
    ]),
  });
  const postgres = await startOwnPostgres();
  const calls: ProviderCall[] = [];
  const runnerEnv = {
    SPINDLE_PLUGINS: join(ROOT, 'examples/plugins/calculator.js'),
    RUNNER_ACK_WAIT_MS: '5000',
    RUNNER_CONCURRENCY: '8',
    SPINDLE_BUS_RETRY_MS: '120000',
  };
  const stack = await startStack({
    namespace,
    runners: 2,
    logLevel: 'warn',
    infra: { natsUrl: nats.url, databaseUrl: postgres?.url ?? testEnv().databaseUrl },
    serviceEnv: (service) => ({
      NATS_USER: service,
      NATS_PASSWORD: password(service as SpindleService),
      ...(service === 'gateway' ? { SPINDLE_STREAMS_PER_KEY: '1000', SPINDLE_STREAMS_PER_TENANT: '1000' } : {}),
    }),
    busAuth: { user: 'chaos-driver', pass: password('driver') },
    reply: chaosProvider(calls, [40, 400], { marker: SLOW_MARKER, latencyMs: [1_500, 3_000] }) as never,
    runnerEnv,
  });
  let failed = true;
  try {
    for (const [name, definition] of Object.entries(chaosWorkflows)) await put(stack, `/v1/workflows/${name}`, definition);
    const perRound = short ? 8 : 16;
    const driver = new ChaosDriver(stack.gatewayUrl, stack.auth, stack.bus, {
      total: perRound,
      concurrency: short ? 8 : 14,
      seed: namespace,
    });
    driver.start();
    const results: TargetResult[] = [];
    for (const [round, target] of TARGETS.entries()) {
      driver.addLoad(perRound);
      await until(() => driver.inFlight().length >= 4 || driver.loadStarted, 30_000);
      const result = await runRound(target, `${namespace}-r${round}`, driver, stack, nats, postgres, runnerEnv);
      assertNoneExited(stack, target);
      results.push({ target, ...result });
      console.log(
        `chaos: ${target} with ${result.inFlight.length} runs in flight` +
          `${result.checks ? `, ${result.checks.label}, ${result.checks.violations.length} violation(s)` : ''}` +
          `; ready again after ${result.recoverySeconds.toFixed(1)} s`,
      );
      await new Promise((r) => setTimeout(r, 2_000));
    }
    await driver.stopStarting();
    const settled = await driver.settle(short ? 90_000 : 150_000);
    console.log(
      `chaos: ${driver.startedCount} runs; ${settled ? 'all settled' : 'some never settled'}; ${calls.length} model calls at the provider`,
    );
    // Before the store is wiped, what each run that never settled left in its log: the lead to why.
    for (const run of driver.inFlight()) console.error(`chaos: UNSETTLED ${await logTail(stack.bus, run)}`);

    const findings = new Map<string, RunFindings>();
    const check = async (run: DrivenRun) =>
      findings.set(run.runId, await checkRun(stack.bus, stack.gatewayUrl, stack.auth, run, callsByKey(calls)));
    for (const run of driver.runs.values()) await check(run);
    // Last, as it takes every log: the store wiped; the runs started after it are checked like the others.
    const wiped = await storeWipedPhase(
      driver,
      stack,
      nats,
      { inFlight: 6, after: 8, tagPrefix: `${namespace}-wiped`, slowMarker: SLOW_MARKER },
      () => allReady(stack),
    );
    assertNoneExited(stack, 'nats-store-wiped');
    results.push({ target: 'nats-store-wiped', ...wiped });
    console.log(`chaos: nats-store-wiped, ${wiped.checks.label}, ${wiped.checks.violations.length} violation(s)`);
    for (const run of wiped.newRuns) await check(run);
    const report = renderReport(
      results,
      findings,
      { runs: driver.startedCount, modelCalls: calls.length, short, postgres: Boolean(postgres) },
      recordedFigures(),
    );
    console.log(`\n${report.table}`);
    const violations = [
      ...results.flatMap((r) => r.checks?.violations.map((v) => `${r.target}: ${v}`) ?? []),
      ...[...findings.values()].flatMap((f) => f.violations.map((v) => `${f.runId}: ${v}`)),
    ];
    for (const v of violations.slice(0, 50)) console.error(`chaos: VIOLATION ${v}`);
    if (!short && violations.length === 0) writeFileSync(join(ROOT, 'docs/reliability.md'), report.markdown);
    failed = violations.length > 0;
    console.log(failed ? `chaos: ${violations.length} violation(s)` : 'chaos: no violation');
  } finally {
    await stack.stop().catch((e: unknown) => console.error('chaos: stopping the stack failed', e));
    await nats.stop();
    await postgres?.stop();
  }
  process.exit(failed ? 1 : 0);
}

/** One round: a kill and restart under the load, or a round with checks of its own (SSE followers, keys on two gateways). */
async function runRound(
  target: Target,
  tagPrefix: string,
  driver: ChaosDriver,
  stack: Stack,
  nats: NatsServerProcess,
  postgres: OwnPostgres | undefined,
  runnerEnv: Record<string, string>,
): Promise<Omit<TargetResult, 'target'>> {
  const restartGateway = () => killAndRestart('gateway', stack, nats, postgres, runnerEnv);
  if (target === 'gateway-sse')
    return sseRound(driver, stack, { runs: SSE_RUNS, perRun: SSE_FOLLOWERS_PER_RUN, tagPrefix }, restartGateway);
  if (target === 'gateway-keyed') {
    let port = 0;
    const killA = async () => {
      port = (await killService(stack, 'gateway')).port;
    };
    const restartA = () => restartService(stack, 'gateway', { PORT: String(port) });
    const killAfterMs = 150 + Math.floor(Math.random() * 100);
    return keyedRound(driver, stack, { starts: short ? 30 : 60, forks: short ? 6 : 15, tagPrefix, killAfterMs }, killA, restartA);
  }
  if (target === 'nats-store-full')
    return storeFullRound(driver, stack, { holdMs: short ? 5_000 : 15_000, tagPrefix, slowMarker: SLOW_MARKER }, () => allReady(stack));
  const inFlight = driver.inFlight().map((r) => r.runId);
  return { inFlight, recoverySeconds: await killAndRestart(target, stack, nats, postgres, runnerEnv) };
}

/** SIGKILL, a pause, a start; answers how long until every service reports ready again. */
async function killAndRestart(
  target: Target,
  stack: Stack,
  nats: NatsServerProcess,
  postgres: OwnPostgres | undefined,
  runnerEnv: Record<string, string>,
): Promise<number> {
  if (target === 'nats-server') {
    await nats.kill();
    await pause();
    await nats.start();
  } else if (target === 'postgres') {
    if (!postgres) return 0;
    await postgres.kill();
    await pause();
    await postgres.start();
  } else if (target === 'runner-frozen') {
    // SIGSTOP past the ack wait: its runs go to the other runner; on waking it must write nothing (fenced).
    const frozen = stack.processes.find((p) => p.name === 'runner' && p.child.exitCode === null && p.child.signalCode === null);
    if (!frozen) throw new Error('no running runner');
    frozen.child.kill('SIGSTOP');
    await new Promise((r) => setTimeout(r, Number(runnerEnv.RUNNER_ACK_WAIT_MS) + 3_000));
    frozen.child.kill('SIGCONT');
  } else if (target === 'postgres-stop') {
    if (!postgres) return 0;
    await postgres.stopFast();
    await new Promise((r) => setTimeout(r, POSTGRES_OUTAGE_MS));
    // Every service rode the outage out: none of them may have exited meanwhile.
    assertNoneExited(stack, target);
    await postgres.start();
  } else {
    const victim = await killService(stack, target);
    await pause();
    return restartService(stack, target, target === 'gateway' ? { PORT: String(victim.port) } : target === 'runner' ? runnerEnv : {});
  }
  const began = Date.now();
  await allReady(stack);
  return (Date.now() - began) / 1_000;
}

/** SIGKILLs a running process of the service and forgets it. */
async function killService(stack: Stack, name: string): Promise<ServiceProcess> {
  const victim = stack.processes.find((p) => p.name === name && p.child.exitCode === null && p.child.signalCode === null);
  if (!victim) throw new Error(`no running ${name}`);
  await stopProcess(victim.child, 'SIGKILL');
  stack.processes.splice(stack.processes.indexOf(victim), 1);
  return victim;
}

/** Starts the service again; answers how long until every service reports ready. */
async function restartService(stack: Stack, name: string, env: Record<string, string>): Promise<number> {
  const began = Date.now();
  await stack.startService(name, env);
  await allReady(stack);
  return (Date.now() - began) / 1_000;
}

/** A run's workflow, tag and last events, in a line. */
async function logTail(bus: Bus, run: DrivenRun): Promise<string> {
  const { events } = await readRunLog(bus, run.runId, 0).catch(() => ({ events: [] as Array<{ seq: number; type: string }> }));
  const tail = events.slice(-6).map((e) => `${e.seq} ${e.type}`);
  return `${run.runId} (${run.workflow}, ${run.tag}, ${events.length} events): … ${tail.join(', ')}`;
}

/** A service that exited without being killed (an uncaught error during an outage, say) fails the run. */
function assertNoneExited(stack: Stack, target: string): void {
  const exited = stack.processes.filter((p) => p.child.exitCode !== null || p.child.signalCode !== null);
  if (exited.length > 0) throw new Error(`chaos: ${exited.map((p) => p.id).join(', ')} exited by itself during the ${target} fault`);
}

/** Every service reports ready, and a read through the gateway, NATS, the recorder and Postgres answers. */
async function allReady(stack: Stack): Promise<void> {
  const { processes } = stack;
  const gateway = processes.find((p) => p.name === 'gateway');
  await until(
    async () => {
      const states = await Promise.all(
        processes.map((p) =>
          fetch(`http://127.0.0.1:${p.port}/readyz`).then(
            (r) => r.status === 200,
            () => false,
          ),
        ),
      );
      const reads = gateway
        ? await fetch(`http://127.0.0.1:${gateway.port}/v1/runs?limit=1`, { headers: stack.auth }).then(
            (r) => r.status === 200,
            () => false,
          )
        : true;
      return states.every(Boolean) && reads;
    },
    120_000,
    100,
  );
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, pollMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`chaos: condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

function pause(): Promise<void> {
  return new Promise((r) => setTimeout(r, 1_500));
}

async function put(stack: Stack, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${stack.gatewayUrl}${path}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...stack.auth },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`PUT ${path}: ${res.status} ${await res.text()}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
