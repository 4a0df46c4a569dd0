import type { CatalogDiff, HumanRequest, RunEvent, RunTrace } from '@spindle/contracts';
import { eventually, startStack, type Stack } from '@spindle/testing';

/**
 * Issue 29, items 4 and 5: a pattern's `{ "ref", "version" }` runs the version it names on every
 * run and resume (or the one a run parameter names), refused at save and at run start when it
 * cannot hold; and a participant past its wait limit fails the run with `participant_timeout`.
 */
const writer = (says: string) => ({ model: 'offline:script', script: [{ answer: says }] });
/** Asks to use the calculator, which needs a person's approval: the run waits there. */
const checker = {
  model: 'offline:script',
  tools: ['calculator'],
  approval: ['calculator'],
  script: [{ calls: [{ tool: 'calculator', args: { expression: '1 + 1' } }] }, { answer: 'checked' }],
};

describe('agent version pins and participant wait limits, end to end', () => {
  let stack: Stack;
  const json = async <T>(res: Response) => (await res.json()) as T;
  const send = (method: string, path: string, body: unknown) =>
    stack.api(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const log = async (runId: string) => (await json<{ events: RunEvent[] }>(await stack.api(`/v1/runs/${runId}/events`))).events;
  const until = (runId: string, type: RunEvent['type']) =>
    eventually(async () => {
      const events = await log(runId);
      expect(events.map((e) => e.type)).toContain(type);
      return events;
    }, 400);
  const start = async (workflow: string, body: unknown = {}) => {
    const res = await send('POST', `/v1/workflows/${workflow}/runs`, body);
    expect(res.status).toBe(202);
    return (await json<{ runId: string }>(res)).runId;
  };
  const outputOf = (events: RunEvent[]) => (events.at(-1) as Extract<RunEvent, { type: 'run.completed' }>).data.output;
  const agentStarted = (events: RunEvent[], nodeId: string) =>
    (events.find((e) => e.type === 'node.started' && e.nodeId === nodeId)?.data as { input: { agent?: unknown } }).input.agent;
  /** Approves the run's one pending tool call (`extra`: e.g. the `definitionVersion` to go on with). */
  const approve = async (runId: string, extra: Record<string, unknown> = {}) => {
    const [request] = (await json<{ requests: HumanRequest[] }>(await stack.api(`/v1/runs/${runId}/requests`))).requests;
    const { callId, name, argumentsHash } = request.call!;
    const body = { decision: 'approve', callId, name, argumentsHash, ...extra };
    expect((await send('POST', `/v1/runs/${runId}/requests/${request.requestId}/respond`, body)).status).toBe(202);
  };
  /** A refusal's status, code and the fields it names. */
  const refusal = async (res: Response) => {
    const body = await json<{ code: string; errors?: Array<{ field: string }> }>(res);
    return { status: res.status, code: body.code, fields: (body.errors ?? []).map((e) => e.field) };
  };

  beforeAll(async () => {
    stack = await startStack({
      // Streaming offline answers come a word per 100 ms: slow enough to overrun a wait limit.
      runnerEnv: { SPINDLE_PLUGINS: 'examples/plugins/calculator.js', SPINDLE_OFFLINE_CHUNK_DELAY_MS: '100' },
    });
    expect((await send('PUT', '/v1/agents/checker', checker)).status).toBe(201);
    expect((await send('PUT', '/v1/agents/writer', writer('written by v1'))).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('a pinned step keeps running v1 after v2 is saved, across a wait for approval and its resume, and the trace says so', async () => {
    const agents = [{ ref: 'checker' }, { ref: 'writer', version: 1 }];
    expect((await send('PUT', '/v1/workflows/pinned', { kind: 'sequential', agents })).status).toBe(201);
    expect((await send('PUT', '/v1/workflows/unpinned', { kind: 'sequential', agents: [{ ref: 'writer' }] })).status).toBe(201);

    const runId = await start('pinned', { input: 'a note' });
    await until(runId, 'run.awaiting');
    // While the run waits, the agent moves on.
    expect((await send('PUT', '/v1/agents/writer', writer('written by v2'))).status).toBe(201);
    await approve(runId);
    const events = await until(runId, 'run.completed');
    expect(events.filter((e) => e.type === 'run.resumed').length).toBeGreaterThan(0);
    expect(outputOf(events)).toMatchObject({ writer: 'written by v1' });
    expect(agentStarted(events, 'writer')).toEqual({ name: 'writer', version: 1 });
    expect(agentStarted(events, 'checker')).toEqual({ name: 'checker', version: 1 });

    // The trace shows the version on the node's span (what the console's span detail reads).
    await eventually(async () => {
      const trace = await json<RunTrace>(await stack.api(`/v1/runs/${runId}/trace`));
      const span = trace.spans.find((s) => s.kind === 'node' && s.nodeId === 'writer');
      expect(span?.input).toMatchObject({ agent: { name: 'writer', version: 1 } });
    });

    // A new run still pins v1; a step with no version takes the latest at its start.
    const again = await start('pinned', { input: 'another' });
    const unpinned = await start('unpinned', { input: 'x' });
    expect((await until(unpinned, 'run.completed')).find((e) => e.type === 'run.queued')?.data).toMatchObject({
      definition: { agents: [{ name: 'writer', agent: { name: 'writer', version: 2 } }] },
    });
    expect(agentStarted(await until(unpinned, 'run.completed'), 'writer')).toEqual({ name: 'writer', version: 2 });
    await until(again, 'run.awaiting');
    expect((await log(again))[0]).toMatchObject({
      data: { definition: { agents: [{ name: 'checker' }, { name: 'writer', script: [{ answer: 'written by v1' }] }] } },
    });
  });

  it('a run parameter chooses the version: its value, else its default; a version the agent lacks is refused before queueing', async () => {
    const definition = {
      kind: 'sequential',
      parameters: { type: 'object', properties: { writer_version: { type: 'integer', minimum: 1, default: 2 } } },
      agents: [{ ref: 'writer', version: { parameter: 'writer_version' } }],
    };
    expect((await send('PUT', '/v1/workflows/chosen', definition)).status).toBe(201);
    const v1 = await start('chosen', { input: 'x', parameters: { writer_version: 1 } });
    const byDefault = await start('chosen', { input: 'x' });
    expect(outputOf(await until(v1, 'run.completed'))).toMatchObject({ output: 'written by v1' });
    expect(outputOf(await until(byDefault, 'run.completed'))).toMatchObject({ output: 'written by v2' });

    const missing = await send('POST', '/v1/workflows/chosen/runs', { input: 'x', parameters: { writer_version: 9 } });
    expect(await refusal(missing)).toEqual({ status: 400, code: 'invalid_definition', fields: ['agents[0].version'] });
  });

  it("an answer that moves a waiting run to another workflow version resolves that version's pins with the run's parameters", async () => {
    const definition = (description: string) => ({
      kind: 'sequential',
      description,
      parameters: { type: 'object', properties: { writer_version: { type: 'integer', default: 2 } } },
      agents: [{ ref: 'checker' }, { ref: 'writer', version: { parameter: 'writer_version' } }],
    });
    expect((await send('PUT', '/v1/workflows/upgraded', definition('first'))).status).toBe(201);
    const runId = await start('upgraded', { input: 'x', parameters: { writer_version: 1 } });
    await until(runId, 'run.awaiting');
    expect((await send('PUT', '/v1/workflows/upgraded', definition('second'))).status).toBe(201);
    await approve(runId, { definitionVersion: 2 });
    const events = await until(runId, 'run.completed');
    expect(events.find((e) => e.type === 'approval.resolved')).toMatchObject({ data: { definitionVersion: 2 } });
    // Version 2's pin, with this run's parameter (not the parameter's default, 2).
    expect(outputOf(events)).toMatchObject({ writer: 'written by v1' });
    expect(agentStarted(events, 'writer')).toEqual({ name: 'writer', version: 1 });
  });

  it('refuses at save (PUT and rollback) a pin that cannot hold, naming the field', async () => {
    const save = (agents: unknown[], extra: Record<string, unknown> = {}) =>
      send('PUT', '/v1/workflows/refused', { kind: 'sequential', agents, ...extra }).then(refusal);
    const invalid = (fields: string[]) => ({ status: 400, code: 'invalid_definition', fields });
    expect(await save([{ ref: 'checker' }, { ref: 'writer', version: 0 }])).toEqual(invalid(['agents[1].version']));
    expect(await save([{ ref: 'checker' }, { ref: 'writer', version: 1.5 }])).toEqual(invalid(['agents[1].version']));
    expect(await save([{ ref: 'checker' }, { ref: 'writer', version: '2' }])).toEqual(invalid(['agents[1].version']));
    expect(await save([{ ref: 'checker' }, { ref: 'writer', version: 7 }])).toEqual(invalid(['agents[1].version']));
    expect(await save([{ ref: 'nobody', version: 1 }])).toEqual(invalid(['agents[0].ref']));
    expect(await save([{ ref: 'writer', version: { parameter: 'undeclared' } }])).toEqual(invalid(['agents[0].version.parameter']));
    const defaultGone = { parameters: { type: 'object', properties: { v: { type: 'integer', default: 5 } } } };
    expect(await save([{ ref: 'writer', version: { parameter: 'v' } }], defaultGone)).toEqual(invalid(['agents[0].version']));

    // Rollback checks like a save: version 1 pins an agent that is gone since.
    expect((await send('PUT', '/v1/agents/temp', writer('temporary'))).status).toBe(201);
    expect((await send('PUT', '/v1/workflows/rolling', { kind: 'sequential', agents: [{ ref: 'temp', version: 1 }] })).status).toBe(201);
    expect((await send('PUT', '/v1/workflows/rolling', { kind: 'sequential', agents: [{ ref: 'writer', version: 2 }] })).status).toBe(201);
    expect((await stack.api('/v1/agents/temp', { method: 'DELETE' })).status).toBe(204);
    expect(await refusal(await send('POST', '/v1/workflows/rolling/rollback', { version: 1 }))).toEqual(invalid(['agents[0].ref']));
  });

  it('refuses a run start whose pinned agent was deleted after the save, before anything is queued', async () => {
    expect((await send('PUT', '/v1/agents/fleeting', writer('here today'))).status).toBe(201);
    expect((await send('PUT', '/v1/workflows/fleeting', { kind: 'sequential', agents: [{ ref: 'fleeting', version: 1 }] })).status).toBe(
      201,
    );
    expect((await stack.api('/v1/agents/fleeting', { method: 'DELETE' })).status).toBe(204);
    const res = await send('POST', '/v1/workflows/fleeting/runs', { input: 'x' });
    expect(await refusal(res)).toEqual({ status: 400, code: 'invalid_definition', fields: ['agents[0].ref'] });
  });

  it('diffs two versions by the agent they pin: a pin change reads as that agent’s version changing', async () => {
    expect((await send('PUT', '/v1/workflows/diffed', { kind: 'sequential', agents: [{ ref: 'writer', version: 1 }] })).status).toBe(201);
    expect((await send('PUT', '/v1/workflows/diffed', { kind: 'sequential', agents: [{ ref: 'writer', version: 2 }] })).status).toBe(201);
    const diff = await json<CatalogDiff>(await stack.api('/v1/workflows/diffed/versions/1/diff/2'));
    expect(diff.changes).toEqual([{ op: 'changed', path: '/agents/writer/version', before: 1, after: 2 }]);
    expect(diff.text).toContain('-      "version": 1');
    expect(diff.text).toContain('+      "version": 2');
  });

  it('fails a run whose participant overruns its wait limit with participant_timeout, naming it and the limit', async () => {
    const slow = { name: 'slow', model: 'offline:echo', stream: true, timeout_ms: 300 };
    const definition = { kind: 'sequential', agentTimeoutMs: 60_000, agents: [{ name: 'quick', model: 'offline:echo' }, slow] };
    expect((await send('PUT', '/v1/workflows/overrun', definition)).status).toBe(201);
    // Twenty words at 100 ms each: two seconds against a limit of 300 ms.
    const runId = await start('overrun', { input: Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ') });
    const events = await until(runId, 'run.failed');
    expect(events.at(-1)).toMatchObject({
      type: 'run.failed',
      data: { error: { code: 'participant_timeout', nodeId: 'slow', message: 'participant "slow" exceeded its wait limit of 300 ms' } },
    });
    expect(events.some((e) => e.type === 'node.completed' && e.nodeId === 'quick')).toBe(true);
    expect(events.find((e) => e.type === 'node.failed' && e.nodeId === 'slow')).toMatchObject({
      data: { error: { code: 'participant_timeout' } },
    });
    const summary = await json<{ status: string; error: { code: string } }>(await stack.api(`/v1/runs/${runId}`));
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'participant_timeout' } });
  });
});
