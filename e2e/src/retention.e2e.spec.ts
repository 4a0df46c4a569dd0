import type { RunEvent } from '@spindle/contracts';
import { eventually, rowsOfStack, startStack, type Stack } from '@spindle/testing';

const quick = { kind: 'graph', nodes: [{ id: 'answer', type: 'llm', model: 'compatible:fake-model', prompt: 'hi', output_key: 'answer' }] };
const asks = { kind: 'graph', nodes: [{ id: 'ask', type: 'human', prompt: 'go on?', form: 'boolean' }] };

/** The stack's tables (the audit log left out: it keeps who erased what) with a row that names the run. */
async function rowsNaming(stack: Stack, runId: string): Promise<string[]> {
  const tables = await rowsOfStack(stack);
  return tables.filter((t) => !t.table.endsWith('.audit_log') && t.rows.some((row) => row.includes(runId))).map((t) => t.table);
}

async function startRun(stack: Stack, workflow: string): Promise<string> {
  const res = await stack.api(`/v1/workflows/${workflow}/runs`, { method: 'POST', body: JSON.stringify({ input: {} }) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { runId: string }).runId;
}

async function lastEvent(stack: Stack, runId: string): Promise<RunEvent | undefined> {
  const { events } = (await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] };
  return events.at(-1);
}

describe('erasing a run (DELETE /v1/runs/{id})', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
    for (const [name, definition] of [
      ['quick', quick],
      ['asks', asks],
    ] as const) {
      expect((await stack.api(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(definition) })).status).toBe(201);
    }
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('erases an ended run from the log, every projection and the idempotency keys, and the audit trail says who did it', async () => {
    const res = await stack.api('/v1/workflows/quick/runs', { method: 'POST', headers: { 'idempotency-key': 'erase-me' }, body: '{}' });
    const { runId } = (await res.json()) as { runId: string };
    await eventually(async () => expect((await lastEvent(stack, runId))?.type).toBe('run.completed'));
    await eventually(async () => expect((await stack.api(`/v1/runs/${runId}/trace`)).status).toBe(200));
    expect(await rowsNaming(stack, runId)).not.toEqual([]);

    expect((await stack.api(`/v1/runs/${runId}`, { method: 'DELETE' })).status).toBe(204);

    for (const path of [`/v1/runs/${runId}`, `/v1/runs/${runId}/events`, `/v1/runs/${runId}/trace`]) {
      const gone = await stack.api(path);
      expect({ path, status: gone.status, code: ((await gone.json()) as { code: string }).code }).toEqual({
        path,
        status: 404,
        code: 'run_not_found',
      });
    }
    expect(await rowsNaming(stack, runId)).toEqual([]);
    const subject = stack.bus.names.eventSubject(runId);
    const info = await stack.bus.jsm.streams.info(stack.bus.names.eventsStream, { subjects_filter: subject });
    expect(info.state.subjects?.[subject] ?? 0).toBe(0);
    const { runs } = (await (await stack.api('/v1/runs?workflow=quick')).json()) as { runs: Array<{ runId: string }> };
    expect(runs.map((r) => r.runId)).not.toContain(runId);
    const { entries } = (await (await stack.api('/v1/audit?action=run.erased')).json()) as {
      entries: Array<{ action: string; target: { id: string } }>;
    };
    expect(entries).toEqual([expect.objectContaining({ action: 'run.erased', target: { kind: 'run', id: runId } })]);
    // Gone is gone: a second erase finds nothing.
    expect((await stack.api(`/v1/runs/${runId}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('refuses a run that has not ended (409 run_active) and a key without the admin scope (403)', async () => {
    const runId = await startRun(stack, 'asks');
    await eventually(async () => expect((await lastEvent(stack, runId))?.type).toBe('run.awaiting'));
    const active = await stack.api(`/v1/runs/${runId}`, { method: 'DELETE' });
    expect({ status: active.status, code: ((await active.json()) as { code: string }).code }).toEqual({ status: 409, code: 'run_active' });

    const made = await stack.api('/v1/keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'writer', scopes: ['runs:read', 'runs:write'] }),
    });
    const { key } = (await made.json()) as { key: string };
    const forbidden = await fetch(`${stack.gatewayUrl}/v1/runs/${runId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    });
    expect({ status: forbidden.status, code: ((await forbidden.json()) as { code: string }).code }).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect((await lastEvent(stack, runId))?.type).toBe('run.awaiting');
  });
});

describe('retention: a run older than SPINDLE_RETENTION_DAYS', () => {
  let stack: Stack;
  beforeAll(async () => {
    // Four seconds, for the test; a deployment keeps 30 days by default.
    stack = await startStack({ serviceEnv: () => ({ SPINDLE_RETENTION_DAYS: String(4 / 86_400) }) });
    expect((await stack.api('/v1/workflows/quick', { method: 'PUT', body: JSON.stringify(quick) })).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('is gone from the log and every projection on the same clock, and answers 410 run_expired', async () => {
    const runId = await startRun(stack, 'quick');
    await eventually(async () => expect((await lastEvent(stack, runId))?.type).toBe('run.completed'));
    expect(await rowsNaming(stack, runId)).not.toEqual([]);

    // The log's max age ends its messages; each projection's sweep its rows.
    await eventually(
      async () => {
        const subject = stack.bus.names.eventSubject(runId);
        const info = await stack.bus.jsm.streams.info(stack.bus.names.eventsStream, { subjects_filter: subject });
        expect(info.state.subjects?.[subject] ?? 0).toBe(0);
        expect(await rowsNaming(stack, runId)).toEqual([]);
      },
      60,
      250,
    );
    for (const path of [`/v1/runs/${runId}`, `/v1/runs/${runId}/events`, `/v1/runs/${runId}/trace`]) {
      const expired = await stack.api(path);
      expect({ path, status: expired.status, code: ((await expired.json()) as { code: string }).code }).toEqual({
        path,
        status: 410,
        code: 'run_expired',
      });
    }
    // A new run is served as ever.
    const fresh = await startRun(stack, 'quick');
    expect((await stack.api(`/v1/runs/${fresh}/events`)).status).toBe(200);
  });
});
