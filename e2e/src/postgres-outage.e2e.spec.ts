import type { RunEvent } from '@spindle/contracts';
import { eventually, startOwnPostgres, startStack, stopProcess, testEnv, type OwnPostgres, type Stack } from '@spindle/testing';
import { putHelloWorkflow, runHelloToEnd } from './hello-runs';

const TABLED = ['gateway', 'trace-recorder', 'checkpoint', 'approval', 'dispatcher'];

/**
 * Issue 26, item 1: `pg_ctl stop -m fast` (what a managed database's failover or restart does)
 * made the gateway, the trace recorder, checkpoint and approval exit within seconds. Here every
 * service stays up through the outage, says it is not ready, answers what needs Postgres with
 * `503 database_unavailable` and `Retry-After`, and catches up by itself once Postgres is back.
 */
describe('a Postgres outage', () => {
  let pg: OwnPostgres;
  let stack: Stack;
  const readiness = (port: number) =>
    fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
  const tabled = () => stack.processes.filter((p) => TABLED.includes(p.name));

  beforeAll(async () => {
    const own = await startOwnPostgres();
    if (!own) throw new Error("this test needs the machine's PostgreSQL binaries (/usr/lib/postgresql/*/bin)");
    pg = own;
    stack = await startStack({ infra: { natsUrl: testEnv().natsUrl, databaseUrl: pg.url } });
    await putHelloWorkflow(stack);
  });
  afterAll(async () => {
    await pg?.start(); // the stack's tear-down drops its schemas
    await stack?.stop();
    await pg?.stop();
  });

  it('keeps every service up and truthful while Postgres is stopped, and recovers by itself', async () => {
    const before = await runHelloToEnd(stack);

    await pg.stopFast();
    // Each service that owns tables says it is not ready (its idle connections broke meanwhile).
    for (const p of tabled()) await eventually(async () => expect(await readiness(p.port)).toBe(503), 150, 100);
    const list = await stack.api('/v1/runs');
    expect(list.status).toBe(503);
    expect(list.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(list.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await list.json()).toMatchObject({ code: 'database_unavailable', status: 503 });
    // What the log alone answers still works, for a key the gateway knew before the outage.
    const events = await stack.api(`/v1/runs/${before.runId}/events`);
    expect(events.status).toBe(200);
    expect(((await events.json()) as { events: RunEvent[] }).events).toEqual(before.log);
    const { frames } = await stack.sse(`/v1/runs/${before.runId}/events`, { headers: { accept: 'text/event-stream' } });
    expect(frames.filter((f) => f.id !== undefined).map((f) => Number(f.id))).toEqual(before.log.map((e) => e.seq));
    // A start needs the workflow catalog: refused as an outage, not as a bug.
    const start = await stack.api('/v1/workflows/hello/runs', { method: 'POST', body: JSON.stringify({ input: { name: 'Bo' } }) });
    expect(start.status).toBe(503);
    expect(await start.json()).toMatchObject({ code: 'database_unavailable' });
    // Some seconds of the outage, the span in which four services used to die.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(stack.processes.filter((p) => p.child.exitCode !== null || p.child.signalCode !== null).map((p) => p.name)).toEqual([]);

    // A gateway started during the outage waits for Postgres, and its port answers meanwhile: alive,
    // not ready, and every route a 503 problem with Retry-After (it can check no key without Postgres).
    const gateway = stack.processes.find((p) => p.name === 'gateway')!;
    await stopProcess(gateway.child);
    stack.processes.splice(stack.processes.indexOf(gateway), 1);
    const restarted = stack.startService('gateway', { PORT: String(gateway.port) });
    await eventually(async () => expect(await readiness(gateway.port)).toBe(503), 150, 100);
    expect((await fetch(`${stack.gatewayUrl}/healthz`)).status).toBe(200);
    const ready = (await (await fetch(`${stack.gatewayUrl}/readyz`)).json()) as { checks: Record<string, string> };
    expect(ready.checks.postgres).toMatch(/^down: /);
    const held = await stack.api(`/v1/runs/${before.runId}/events`);
    expect(held.status).toBe(503);
    expect(held.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await held.json()).toMatchObject({ code: 'database_unavailable', status: 503, instance: `/v1/runs/${before.runId}/events` });

    await pg.start();
    await restarted;
    for (const p of tabled()) await eventually(async () => expect(await readiness(p.port)).toBe(200), 300, 100);
    const { runId, log } = await runHelloToEnd(stack);
    // The projections caught up: the trace has the run, completed, with each node.
    const trace = await eventually(
      async () => {
        const res = await stack.api(`/v1/runs/${runId}/trace`);
        const body = (await res.json()) as { run?: { status?: string }; spans?: unknown[] };
        if (body.run?.status !== 'completed') throw new Error('the trace has not caught up');
        return body;
      },
      300,
      100,
    );
    expect(trace.spans?.length).toBeGreaterThan(0);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
  });
});
