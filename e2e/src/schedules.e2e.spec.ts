import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunEvent, Schedule, ScheduleFiring, WebhookEvent } from '@spindle/contracts';
import { eventually, providerGate, startStack, stopProcess, type Stack, readsControlPlaneSettings } from '@spindle/testing';

/** A run that waits in its model call for as long as the test holds the provider. */
const slow = {
  kind: 'graph',
  nodes: [{ id: 'answer', type: 'llm', model: 'compatible:fake-model', prompt: 'tick', output_key: 'answer' }],
};

describe('schedules', () => {
  let stack: Stack;
  const gate = providerGate();
  const { hold, release } = gate;
  const post = async <T>(path: string, body: unknown) => {
    const res = await stack.api(path, { method: 'POST', body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as T };
  };
  const firings = async (id: string) =>
    ((await (await stack.api(`/v1/schedules/${id}/firings`)).json()) as { firings: ScheduleFiring[] }).firings.slice().reverse();
  const problem = async (body: unknown) => {
    const res = await post<{ code: string; errors?: Array<{ field: string }> }>('/v1/schedules', body);
    return { status: res.status, code: res.body.code, field: res.body.errors?.[0]?.field };
  };

  /** The one dispatcher (so the one that fires) stopped and forgotten. */
  const stopDispatcher = async () => {
    const dispatcher = stack.processes.find((p) => p.name === 'dispatcher')!;
    await stopProcess(dispatcher.child);
    stack.processes.splice(stack.processes.indexOf(dispatcher), 1);
  };

  beforeAll(async () => {
    stack = await startStack({
      serviceEnv: (name): Record<string, string> =>
        readsControlPlaneSettings(name)
          ? { SPINDLE_SCHEDULE_MIN_INTERVAL_MS: '1500', SPINDLE_WEBHOOK_ALLOW_HTTP: 'true', SPINDLE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }
          : {},
    });
    stack.fake.reply = async () => {
      await gate.passed();
      return { text: 'tock' };
    };
    expect((await stack.api('/v1/workflows/slow', { method: 'PUT', body: JSON.stringify(slow) })).status).toBe(201);
  });
  afterEach(() => release());
  afterAll(async () => {
    await stack?.stop();
  });

  it('fires every two seconds, skips while its run is slow, and across a dispatcher restart loses and doubles no firing', async () => {
    hold();
    const made = await post<Schedule>('/v1/schedules', {
      cron: '*/2 * * * * *',
      workflow: 'slow',
      input: 'x',
      overlap: 'skip',
      catchUp: 'all',
    });
    expect(made).toMatchObject({ status: 201, body: { timezone: 'UTC', overlap: 'skip', catchUp: 'all', paused: false } });
    const id = made.body.scheduleId;
    // The first firing's run waits in its model call; the next firings are skipped.
    await eventually(async () => {
      const f = await firings(id);
      expect(f.filter((x) => x.outcome === 'started')).toHaveLength(1);
      expect(f.filter((x) => x.outcome === 'skipped').length).toBeGreaterThanOrEqual(2);
    }, 200);

    // The dispatcher is away for a few firing times.
    await stopDispatcher();
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    await stack.startService('dispatcher');
    release();
    // Once the slow run has ended, a later firing starts the next one.
    await eventually(async () => expect((await firings(id)).filter((x) => x.outcome === 'started')).toHaveLength(2), 200);
    expect((await post<Schedule>(`/v1/schedules/${id}/pause`, {})).body).toMatchObject({ paused: true, nextFireAt: null, upcoming: [] });

    // Every firing time from the first to the last is there once: two seconds apart, none missing, none twice.
    await eventually(async () => expect((await firings(id)).filter((f) => f.outcome === 'pending')).toEqual([]), 200);
    const all = await firings(id);
    const times = all.map((f) => Date.parse(f.fireAt));
    expect(times.slice(1).map((t, i) => t - times[i])).toEqual(times.slice(1).map(() => 2_000));
    expect(all.every((f) => f.outcome === 'started' || f.outcome === 'skipped')).toBe(true);
    // Each started firing is one run, which names the schedule and the time.
    const started = all.filter((f) => f.outcome === 'started');
    const { runs } = (await (await stack.api('/v1/runs?workflow=slow&limit=200')).json()) as { runs: Array<{ runId: string }> };
    expect(runs.map((r) => r.runId).sort()).toEqual(started.map((f) => f.runId).sort());
    for (const f of started) {
      const { events } = (await (await stack.api(`/v1/runs/${f.runId}/events`)).json()) as { events: RunEvent[] };
      expect((events[0] as RunEvent & { data: { scheduledBy: unknown } }).data.scheduledBy).toEqual({ scheduleId: id, fireAt: f.fireAt });
    }
  });

  it('fires on demand and tells the webhook named for it, pauses and resumes, and is gone once deleted', async () => {
    const { body } = await post<Schedule>('/v1/schedules', { cron: '0 3 1 1 *', timezone: 'Europe/Paris', workflow: 'slow' });
    expect(body.nextFireAt).toMatch(/-01-01T02:00:00.000Z$/);
    // The next firings, read with the scheduler's cron: the first is the one it plans, then one a year.
    expect(body.upcoming).toHaveLength(5);
    expect(body.upcoming[0]).toBe(body.nextFireAt);
    expect(body.upcoming.every((t) => t.endsWith('-01-01T02:00:00.000Z'))).toBe(true);
    const told: WebhookEvent[] = [];
    const receiver = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => {
        told.push(JSON.parse(text) as WebhookEvent);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/fired`;
      expect((await post('/v1/webhooks', { url, scheduleId: body.scheduleId, events: ['run.completed'] })).status).toBe(201);
      expect((await post<{ fireAt: string }>(`/v1/schedules/${body.scheduleId}/trigger`, {})).status).toBe(202);
      await eventually(async () => expect((await firings(body.scheduleId)).map((f) => f.outcome)).toEqual(['started']), 200);
      const [fired] = await firings(body.scheduleId);
      await eventually(
        async () =>
          expect(told.map((e) => [e.type, e.data.runId, e.data.scheduleId])).toEqual([['run.completed', fired.runId, body.scheduleId]]),
        200,
      );
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
    const paused = await post<Schedule>(`/v1/schedules/${body.scheduleId}/pause`, {});
    expect(paused.body).toMatchObject({ paused: true, nextFireAt: null });
    expect((await post<Schedule>(`/v1/schedules/${body.scheduleId}/resume`, {})).body).toMatchObject({
      paused: false,
      nextFireAt: body.nextFireAt,
    });
    expect((await stack.api(`/v1/schedules/${body.scheduleId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await stack.api(`/v1/schedules/${body.scheduleId}`)).status).toBe(404);
  });

  it('records a trigger while no dispatcher runs (202, pending) and makes it once one is back', async () => {
    const { body } = await post<Schedule>('/v1/schedules', { cron: '0 3 1 1 *', workflow: 'slow' });
    await stopDispatcher();
    const triggered = await post<{ fireAt: string }>(`/v1/schedules/${body.scheduleId}/trigger`, {});
    expect(triggered.status).toBe(202);
    expect((await firings(body.scheduleId)).map((f) => [f.fireAt, f.outcome])).toEqual([[triggered.body.fireAt, 'pending']]);
    await stack.startService('dispatcher');
    await eventually(async () => expect((await firings(body.scheduleId)).map((f) => f.outcome)).toEqual(['started']), 200);
    expect((await stack.api(`/v1/schedules/${body.scheduleId}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('refuses a cron that does not parse or fires too often, an unknown zone or workflow, naming the field', async () => {
    expect(await problem({ cron: 'every tuesday', workflow: 'slow' })).toEqual({ status: 400, code: 'validation_failed', field: 'cron' });
    expect(await problem({ cron: '* * * * * *', workflow: 'slow' })).toEqual({ status: 400, code: 'validation_failed', field: 'cron' });
    expect(await problem({ cron: '0 9 * * *', timezone: 'Mars/Base', workflow: 'slow' })).toEqual({
      status: 400,
      code: 'validation_failed',
      field: 'timezone',
    });
    expect(await problem({ cron: '0 9 * * *', workflow: 'slow', overlap: 'sometimes' })).toMatchObject({
      status: 400,
      code: 'validation_failed',
    });
    expect(await problem({ cron: '0 9 * * *', workflow: 'nope' })).toMatchObject({ status: 404, code: 'workflow_not_found' });
    expect((await stack.api('/v1/schedules/sch_01JN0000000000000000000000')).status).toBe(404);
  });
});
