import { setTimeout as sleep } from 'node:timers/promises';
import { readRunLog, lastEventOf } from '@spindle/bus';
import type { Stack } from '@spindle/testing';
import type { ChaosDriver, DrivenRun } from './chaos-driver';
import { checkFollower, follow } from './chaos-sse';

/** What a round checked besides its runs (its followers, its keys), and what it found. */
export interface RoundChecks {
  label: string;
  violations: string[];
}

/** A round's result: the runs it covers, how long the killed process took to be ready, its own checks. */
export interface RoundResult {
  inFlight: string[];
  recoverySeconds: number;
  checks: RoundChecks;
}

/** Tags of the runs the SSE round starts: the fake provider answers them slowly, so they outlive the kill. */
export const SLOW_MARKER = '-sse';
const SSE_WORKFLOWS = ['chaos-chain', 'chaos-loop', 'chaos-fork', 'chaos-agent'];

/**
 * The gateway SIGKILLed under SSE followers: starts `runs` runs, follows each with `perRun`
 * clients, kills and restarts the gateway (same port); every follower reconnects with
 * `Last-Event-ID` until its run's terminal event, and then must hold exactly the run's log.
 */
export async function sseRound(
  driver: ChaosDriver,
  stack: Stack,
  opts: { runs: number; perRun: number; tagPrefix: string },
  restartGateway: () => Promise<number>,
): Promise<RoundResult> {
  const runs = await Promise.all(
    Array.from({ length: opts.runs }, (_, i) =>
      driver.startRun(SSE_WORKFLOWS[i % SSE_WORKFLOWS.length], `${opts.tagPrefix}${SLOW_MARKER}-${i}`),
    ),
  );
  const deadline = Date.now() + 150_000;
  const followers = runs.flatMap((run) =>
    Array.from({ length: opts.perRun }, () => follow(stack.gatewayUrl, stack.auth, run.runId, deadline)),
  );
  await Promise.race([Promise.all(followers.map((f) => f.connected)), sleep(20_000)]);
  const recoverySeconds = await restartGateway();
  const done = await Promise.all(followers.map((f) => f.done));
  const violations: string[] = [];
  for (const [i, follower] of done.entries()) {
    for (const v of await checkFollower(stack.bus, follower)) violations.push(`SSE follower ${i} of ${follower.runId}: ${v}`);
  }
  const reconnected = done.filter((f) => f.connections > 1).length;
  return {
    inFlight: runs.map((r) => r.runId),
    recoverySeconds,
    checks: { label: `${done.length} SSE followers (${reconnected} reconnected)`, violations },
  };
}

/** One keyed creation of the burst: a start or a fork, and the run it would be once created. */
interface KeyedRequest {
  key: string;
  path: string;
  body: unknown;
  run: Pick<DrivenRun, 'workflow' | 'forkOf'>;
}

/**
 * Two gateways; a burst of keyed starts and forks on gateway A, SIGKILLed `killAfterMs` after its first answer;
 * every key retried (twice) on gateway B with the same body. Every key must answer one run id on
 * every gateway and every try, and every answered run must exist: `GET` 200 and `run.queued` in its
 * log. The answered runs join the driver's, so they are settled and checked like the others.
 */
export async function keyedRound(
  driver: ChaosDriver,
  stack: Stack,
  opts: { starts: number; forks: number; tagPrefix: string; killAfterMs: number },
  killA: () => Promise<void>,
  restartA: () => Promise<number>,
): Promise<RoundResult> {
  const b = await stack.startService('gateway');
  const gatewayB = `http://127.0.0.1:${b.port}`;
  const requests = await burstOf(driver, stack, opts);
  const answers = new Map<string, Array<{ gateway: string; status: number; runId?: string }>>(requests.map((r) => [r.key, []]));
  // A request every 20 ms; the kill comes `killAfterMs` after A's first answer (a loaded machine took over a second for
  // one): some keys answered, some in progress, the rest never sent to A.
  let firstAnswer!: () => void;
  const answered = new Promise<void>((resolve) => (firstAnswer = resolve));
  const onA = requests.map((r, i) =>
    sleep(i * 20)
      .then(() => post(stack.gatewayUrl, stack.auth, r))
      .then(
        (a) => {
          answers.get(r.key)?.push({ gateway: 'A', ...a });
          firstAnswer();
        },
        () => undefined,
      ),
  );
  const burstBegan = Date.now();
  await Promise.race([answered, sleep(10_000)]);
  const firstAnswerMs = Date.now() - burstBegan;
  await sleep(opts.killAfterMs);
  await killA();
  await Promise.all(onA);
  for (let attempt = 0; attempt < 2; attempt++) {
    await Promise.all(
      requests.map(async (r) => answers.get(r.key)?.push({ gateway: 'B', ...(await postUntilAnswered(gatewayB, stack.auth, r)) })),
    );
  }
  const violations: string[] = [];
  for (const r of requests) {
    const of = answers.get(r.key) ?? [];
    const ids = new Set(of.map((a) => a.runId).filter(Boolean));
    const refused = of.filter((a) => a.gateway === 'B' && !a.runId);
    if (refused.length > 0) violations.push(`key ${r.key}: gateway B answered ${refused.map((a) => a.status).join(', ')}`);
    if (ids.size > 1) violations.push(`key ${r.key}: answered ${[...ids].join(' and ')}`);
    const [runId] = ids;
    if (!runId) continue;
    violations.push(...(await checkRunExists(gatewayB, stack, r.key, runId)));
    if (!driver.runs.has(runId)) driver.adopt({ runId, tag: r.key, answer: false, cancel: false, ...r.run });
  }
  const recoverySeconds = await restartA();
  stack.processes.splice(stack.processes.indexOf(b), 1);
  b.child.kill('SIGTERM');
  const answeredByA = [...answers.values()].filter((a) => a.some((x) => x.gateway === 'A' && x.runId)).length;
  const runIds = requests.flatMap((r) => answers.get(r.key)?.find((a) => a.runId)?.runId ?? []);
  return {
    inFlight: runIds,
    recoverySeconds,
    checks: {
      label: `${requests.length} keys (${answeredByA} answered by A, killed ${firstAnswerMs + opts.killAfterMs} ms into the burst)`,
      violations,
    },
  };
}

/** The burst: keyed starts, and keyed forks of chain runs that completed (each has checkpoint cp-1). */
async function burstOf(
  driver: ChaosDriver,
  stack: Stack,
  opts: { starts: number; forks: number; tagPrefix: string },
): Promise<KeyedRequest[]> {
  const starts = Array.from({ length: opts.starts }, (_, i): KeyedRequest => {
    const key = `${opts.tagPrefix}-keyed-${i}`;
    return { key, path: '/v1/workflows/chaos-chain/runs', body: { input: { tag: key } }, run: { workflow: 'chaos-chain' } };
  });
  const sources: DrivenRun[] = [];
  for (const run of driver.runs.values()) {
    if (sources.length >= opts.forks) break;
    if (run.workflow !== 'chaos-chain' || run.forkOf || !run.settled) continue;
    if ((await lastEventOf(stack.bus, run.runId))?.event.type === 'run.completed') sources.push(run);
  }
  const forks = sources.map((source, i): KeyedRequest => {
    const key = `${opts.tagPrefix}-keyed-fork-${i}`;
    return {
      key,
      path: `/v1/runs/${source.runId}/fork`,
      body: { checkpointId: 'cp-1', state: { input: { tag: key } } },
      run: { workflow: source.workflow, forkOf: source.runId },
    };
  });
  return [...starts, ...forks];
}

async function post(gatewayUrl: string, auth: Record<string, string>, r: KeyedRequest): Promise<{ status: number; runId?: string }> {
  const res = await fetch(`${gatewayUrl}${r.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': r.key, ...auth },
    body: JSON.stringify(r.body),
  });
  const answer = (await res.json().catch(() => ({}))) as { runId?: string };
  return { status: res.status, ...(res.status < 300 && answer.runId ? { runId: answer.runId } : {}) };
}

/** A retry as a client makes it: again while the answer is 503 or the connection fails, bounded. */
async function postUntilAnswered(gatewayUrl: string, auth: Record<string, string>, r: KeyedRequest) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await post(gatewayUrl, auth, r).catch(() => ({ status: 0 }));
    if ((answer.status !== 503 && answer.status !== 0) || Date.now() > deadline) return answer;
    await sleep(250);
  }
}

async function checkRunExists(gatewayUrl: string, stack: Stack, key: string, runId: string): Promise<string[]> {
  const violations: string[] = [];
  const res = await fetch(`${gatewayUrl}/v1/runs/${runId}`, { headers: stack.auth });
  if (res.status !== 200) violations.push(`key ${key}: run ${runId} was answered, GET answers ${res.status}`);
  const { events } = await readRunLog(stack.bus, runId);
  if (events[0]?.type !== 'run.queued') violations.push(`key ${key}: run ${runId} was answered, its log has no run.queued`);
  return violations;
}
