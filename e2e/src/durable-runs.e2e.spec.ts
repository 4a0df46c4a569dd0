import type { HumanRequest, RunEvent, RunTrace } from '@spindle/contracts';
import { startStack, stopProcess, type FakeOpenAIReply, type Stack, BACKGROUND_SERVICES } from '@spindle/testing';

/** The prompt a step's model call was made with: how the provider's call count is kept per input. */
const promptOf = (body: { messages?: Array<{ role: string; content: unknown }> }) =>
  String(body.messages?.find((m) => m.role === 'user')?.content ?? '');

/** The prompt whose first call the provider holds until the test lets it go: the step in flight when its runner dies. */
const HELD_PROMPT = 'step 9 of the report';
let releaseHeld!: () => void;
const held = new Promise<void>((resolve) => (releaseHeld = resolve));

async function slowModel(body: { messages?: Array<{ role: string; content: unknown }> }): Promise<FakeOpenAIReply> {
  if (promptOf(body) === HELD_PROMPT) await held;
  return { text: `done: ${promptOf(body)}`, delayMs: 20, usage: { prompt_tokens: 10, completion_tokens: 3 } };
}

/** Who the admin key of a test stack is, in the log. */
const ADMIN = { kind: 'key', id: expect.any(String), name: 'bootstrap admin' };
const TIMEOUT = { kind: 'system', id: 'timeout', name: 'time-out' };

describe('durable runs, end to end', () => {
  let stack: Stack;
  const json = async <T>(res: Response) => (await res.json()) as T;
  const post = (path: string, body: unknown = {}) =>
    stack.api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const put = (path: string, body: unknown) =>
    stack.api(path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const log = async (runId: string) => (await json<{ events: RunEvent[] }>(await stack.api(`/v1/runs/${runId}/events`))).events;
  const until = async (runId: string, done: (events: RunEvent[]) => boolean, what: string, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const events = await log(runId);
      if (done(events)) return events;
      if (Date.now() > deadline) throw new Error(`run ${runId}: no ${what} within ${timeoutMs} ms; last event ${events.at(-1)?.type}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const has = (type: string) => (events: RunEvent[]) => events.some((e) => e.type === type);
  const start = async (workflow: string, body: unknown = {}) =>
    (await json<{ runId: string }>(await post(`/v1/workflows/${workflow}/runs`, body))).runId;

  beforeAll(async () => {
    stack = await startStack({
      runners: 2,
      reply: slowModel as never,
      runnerEnv: { RUNNER_CONCURRENCY: '1', RUNNER_ACK_WAIT_MS: '3000', SPINDLE_PLUGINS: 'examples/plugins/order-lookup.js' },
    });
    const steps = Array.from({ length: 20 }, (_, i) => ({
      id: `s${i + 1}`,
      type: 'llm',
      model: 'compatible:steps',
      prompt: `step ${i + 1} of {{input}}`,
      output_key: `s${i + 1}`,
      checkpoint: true,
    }));
    expect(
      (
        await put('/v1/workflows/twenty', {
          kind: 'graph',
          nodes: steps,
          edges: steps.slice(1).map((s, i) => ({ from: steps[i].id, to: s.id })),
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await put('/v1/workflows/review', {
          kind: 'graph',
          nodes: [
            { id: 'draft', type: 'llm', model: 'compatible:steps', prompt: 'draft for {{input}}', output_key: 'draft', checkpoint: true },
            { id: 'approve', type: 'human', prompt: 'Publish "{{draft}}"?', form: 'text' },
            { id: 'publish', type: 'set', values: { published: '{{approve.text}}' } },
          ],
          edges: [
            { from: 'draft', to: 'approve' },
            { from: 'approve', to: 'publish' },
          ],
        })
      ).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("continues a run on the other runner after the one holding it is killed, without calling a finished step's model again", async () => {
    const runId = await start('twenty', { input: 'the report' });
    // Killed while step 9's model call is in flight: steps 1–8 are recorded, step 9's answer never arrives.
    const beforeKill = await until(
      runId,
      (events) => events.some((e) => e.type === 'model.started' && e.nodeId === 's9'),
      's9 calling its model',
    );
    const holder = (beforeKill.find((e) => e.type === 'run.started') as Extract<RunEvent, { type: 'run.started' }>).data.worker;
    const victim = stack.processes.find((p) => p.id === holder)!;
    victim.child.kill('SIGKILL');
    await stopProcess(victim.child);
    releaseHeld();

    const events = await until(runId, has('run.completed'), 'completion');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const resumed = events.find((e) => e.type === 'run.resumed') as Extract<RunEvent, { type: 'run.resumed' }>;
    expect(resumed.data).toMatchObject({ reason: 'worker_lost', attempt: 2 });
    expect(resumed.data.worker).not.toBe(holder);
    const output = (events.at(-1) as Extract<RunEvent, { type: 'run.completed' }>).data.output;
    for (let i = 1; i <= 20; i++) expect(output[`s${i}`]).toBe(`done: step ${i} of the report`);
    // Each step completed exactly once, and no step's span opened twice.
    for (let i = 1; i <= 20; i++) {
      expect(events.filter((e) => e.type === 'node.completed' && e.nodeId === `s${i}`)).toHaveLength(1);
      expect(events.filter((e) => e.type === 'node.started' && e.nodeId === `s${i}`)).toHaveLength(1);
    }
    // The provider saw every input once; only a call in flight when the runner died (never recorded) could be made again.
    const calls = new Map<string, number>();
    for (const c of stack.fake.calls) calls.set(promptOf(c.body), (calls.get(promptOf(c.body)) ?? 0) + 1);
    const recordedBeforeLoss = events.filter((e) => e.type === 'model.completed' && e.seq < resumed.seq).map((e) => e.nodeId);
    expect(recordedBeforeLoss).toEqual(['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8']);
    const repeated = [...calls].filter(([prompt, n]) => prompt.endsWith('of the report') && n > 1);
    expect(repeated).toEqual([[HELD_PROMPT, 2]]);
    expect([...calls.keys()].filter((prompt) => prompt.endsWith('of the report'))).toHaveLength(20);
    // Replace the killed runner for the tests that follow.
    await stack.startService('runner', {
      RUNNER_CONCURRENCY: '1',
      RUNNER_ACK_WAIT_MS: '3000',
      SPINDLE_PLUGINS: 'examples/plugins/order-lookup.js',
    });
  });

  it('forks a finished run from a mid-run checkpoint: unchanged inputs reuse stored results, a patched state runs again', async () => {
    const runId = await start('twenty', { input: 'fork me' });
    await until(runId, has('run.completed'), 'completion');
    const { checkpoints } = await json<{ checkpoints: Array<{ checkpointId: string; step: number; frontier: string[]; seq: number }> }>(
      await stack.api(`/v1/runs/${runId}/checkpoints`),
    );
    expect(checkpoints.map((c) => c.step)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const mid = checkpoints[9];
    expect(mid.frontier).toEqual(['s11']);

    const callsBefore = stack.fake.callCount;
    const same = await post(`/v1/runs/${runId}/fork`, { checkpointId: mid.checkpointId });
    expect(same.status).toBe(202);
    const fork = await json<{ runId: string; forkedFrom: { runId: string; seq: number; checkpointId: string } }>(same);
    expect(fork.forkedFrom).toEqual({ runId, seq: mid.seq, checkpointId: mid.checkpointId, forkedBy: ADMIN });
    const forkEvents = await until(fork.runId, has('run.completed'), 'fork completion');
    expect(forkEvents[0]).toMatchObject({ type: 'run.queued', data: { forkedFrom: fork.forkedFrom, start: ['s11'] } });
    expect(forkEvents.some((e) => e.nodeId === 's10')).toBe(false);
    const reused = forkEvents.filter((e) => e.type === 'node.completed' && (e.data as { cachedFrom?: string }).cachedFrom);
    expect(reused.map((e) => e.nodeId)).toEqual(Array.from({ length: 10 }, (_, i) => `s${i + 11}`));
    expect(stack.fake.callCount).toBe(callsBefore);

    const patched = await json<{ runId: string }>(
      await post(`/v1/runs/${runId}/fork`, { checkpointId: mid.checkpointId, state: { input: 'a patched report' } }),
    );
    const patchedEvents = await until(patched.runId, has('run.completed'), 'patched fork completion');
    expect((patchedEvents.at(-1) as Extract<RunEvent, { type: 'run.completed' }>).data.output).toMatchObject({
      s10: 'done: step 10 of fork me',
      s11: 'done: step 11 of a patched report',
    });
    expect(stack.fake.callCount).toBe(callsBefore + 10);
    // The source run is untouched.
    expect((await log(runId)).at(-1)).toMatchObject({ type: 'run.completed' });
    expect((await post(`/v1/runs/${runId}/fork`, { checkpointId: 'cp-99' })).status).toBe(404);

    // A retried fork with its Idempotency-Key answers with the run the first one opened; a key names one request only.
    const keyed = (body: unknown, key: string) =>
      stack.api(`/v1/runs/${runId}/fork`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
    const key = `fork-${runId}`;
    const first = await keyed({ checkpointId: mid.checkpointId }, key);
    const again = await keyed({ checkpointId: mid.checkpointId }, key);
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const firstRun = (await json<{ runId: string }>(first)).runId;
    expect((await json<{ runId: string }>(again)).runId).toBe(firstRun);
    const otherBody = await keyed({ checkpointId: checkpoints[4].checkpointId }, key);
    expect(otherBody.status).toBe(409);
    expect(await otherBody.json()).toMatchObject({ code: 'idempotency_key_reused' });
    const asStart = await stack.api(`/v1/workflows/twenty/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ input: 'fork me' }),
    });
    expect(asStart.status).toBe(409);
    await until(firstRun, has('run.completed'), 'keyed fork completion');
  });

  it('waits for a person across a restart of every service, and continues where it stopped when answered', async () => {
    const runId = await start('review', { input: 'the launch post' });
    await until(runId, has('run.awaiting'), 'wait');
    // The inbox spans runs, so it is not read-your-writes: it shows the request once the approval service has projected it.
    let request: HumanRequest | undefined;
    for (const deadline = Date.now() + 10_000; !request && Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      request = (await json<{ requests: HumanRequest[] }>(await stack.api(`/v1/requests?status=pending`))).requests.find(
        (r) => r.runId === runId,
      );
    }
    if (!request) throw new Error('the request never reached the inbox');
    expect(request).toMatchObject({
      workflow: 'review',
      nodeId: 'approve',
      kind: 'input',
      prompt: 'Publish "done: draft for the launch post"?',
      form: { kind: 'text' },
      status: 'pending',
    });
    expect(request.ageMs).toBeGreaterThanOrEqual(0);
    const draftCalls = stack.fake.callCount;

    for (const p of [...stack.processes]) await stopProcess(p.child);
    const gateway = await stack.startService('gateway');
    stack.gatewayUrl = `http://127.0.0.1:${gateway.port}`;
    for (const s of BACKGROUND_SERVICES) await stack.startService(s);
    for (let i = 0; i < 2; i++)
      await stack.startService('runner', {
        RUNNER_CONCURRENCY: '1',
        RUNNER_ACK_WAIT_MS: '3000',
        SPINDLE_PLUGINS: 'examples/plugins/order-lookup.js',
      });

    // Still waiting, still in the inbox, after the restart.
    expect((await log(runId)).at(-1)).toMatchObject({ type: 'run.awaiting' });
    const badShape = await post(`/v1/runs/${runId}/requests/${request.requestId}/respond`, { approved: true });
    expect(badShape.status).toBe(400);
    expect(await badShape.json()).toMatchObject({ code: 'validation_failed' });
    const answered = await post(`/v1/runs/${runId}/requests/${request.requestId}/respond`, { text: 'ship it', respondedBy: 'ada' });
    expect(answered.status).toBe(202);
    const events = await until(runId, has('run.completed'), 'completion after the answer');
    expect((events.at(-1) as Extract<RunEvent, { type: 'run.completed' }>).data.output).toMatchObject({
      published: 'ship it',
      draft: 'done: draft for the launch post',
    });
    expect(events.find((e) => e.type === 'run.resumed')).toMatchObject({ data: { reason: 'answered' } });
    expect(events.filter((e) => e.type === 'node.started' && e.nodeId === 'draft')).toHaveLength(1);
    expect(stack.fake.callCount).toBe(draftCalls);

    // Single mode: the same answer again changes nothing; a different one is refused.
    const again = await post(`/v1/runs/${runId}/requests/${request.requestId}/respond`, { text: 'ship it', respondedBy: 'ada' });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: 'unchanged' });
    const other = await post(`/v1/runs/${runId}/requests/${request.requestId}/respond`, { text: 'hold it' });
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({ code: 'request_already_answered' });
    const ofRun = await json<{ requests: HumanRequest[] }>(await stack.api(`/v1/runs/${runId}/requests`));
    expect(ofRun.requests).toEqual([
      expect.objectContaining({
        requestId: request.requestId,
        status: 'answered',
        answeredBy: { ...ADMIN, onBehalfOf: 'ada' },
        answer: { text: 'ship it' },
      }),
    ]);

    // The trace shows the wait as a span of its own under the node that asked: who answered, what, how long it took.
    const trace = await json<RunTrace>(await stack.api(`/v1/runs/${runId}/trace`));
    const wait = trace.spans.find((s) => s.kind === 'request');
    expect(wait).toMatchObject({
      spanId: request.requestId,
      nodeType: 'input',
      nodeId: 'approve',
      status: 'completed',
      output: { answeredBy: { ...ADMIN, onBehalfOf: 'ada' }, answer: { text: 'ship it' } },
    });
    expect(trace.spans.find((s) => s.spanId === wait?.parentSpanId)).toMatchObject({
      kind: 'node',
      nodeId: 'approve',
      status: 'completed',
    });
    expect(wait?.durationMs).toBe(Date.parse(wait!.endedAt!) - Date.parse(wait!.startedAt!));
  });

  it('approves the exact call, refuses a wrong binding, rejects with a message the model reads, times out one unanswered', async () => {
    // The scripted model asks for a lookup; after a tool result (or a rejection) it answers.
    stack.fake.reply = (body: { messages?: Array<{ role: string; content: unknown }> }) => {
      const toolResult = body.messages?.find((m) => m.role === 'tool');
      if (!toolResult) return { text: '', toolCalls: [{ id: 'call_look', name: 'lookup_order', arguments: { orderId: 'A-1002' } }] };
      return { text: `final: ${String(toolResult.content).slice(0, 80)}` };
    };
    expect(
      (
        await put('/v1/workflows/guarded', {
          kind: 'graph',
          nodes: [
            {
              id: 'agent',
              type: 'agent',
              model: 'compatible:agent',
              prompt: '{{input}}',
              tools: ['lookup_order'],
              approval: ['lookup_order'],
            },
            { id: 'escalate', type: 'set', values: { escalated: true } },
          ],
          edges: [{ from: 'agent', to: 'escalate', handle: 'rejected' }],
        })
      ).status,
    ).toBe(201);

    const approveRun = await start('guarded', { input: 'where is A-1002?' });
    await until(approveRun, has('run.awaiting'), 'approval wait');
    const [pending] = (await json<{ requests: HumanRequest[] }>(await stack.api(`/v1/runs/${approveRun}/requests`))).requests;
    expect(pending).toMatchObject({
      kind: 'approval',
      status: 'pending',
      call: { callId: 'call_look', name: 'lookup_order', arguments: { orderId: 'A-1002' } },
    });
    const binding = { callId: pending.call!.callId, name: pending.call!.name, argumentsHash: pending.call!.argumentsHash };
    const forged = await post(`/v1/runs/${approveRun}/requests/${pending.requestId}/respond`, {
      decision: 'approve',
      ...binding,
      argumentsHash: 'f'.repeat(64),
    });
    expect(forged.status).toBe(409);
    expect(await forged.json()).toMatchObject({ code: 'approval_binding_mismatch' });
    expect((await log(approveRun)).at(-1)).toMatchObject({ type: 'run.awaiting' });
    const callsBefore = stack.fake.callCount;
    expect((await post(`/v1/runs/${approveRun}/requests/${pending.requestId}/respond`, { decision: 'approve', ...binding })).status).toBe(
      202,
    );
    const approved = await until(approveRun, has('run.completed'), 'completion after approval');
    expect(approved.find((e) => e.type === 'tool.called')).toMatchObject({
      data: { callId: 'call_look', arguments: { orderId: 'A-1002' } },
    });
    expect((approved.at(-1) as Extract<RunEvent, { type: 'run.completed' }>).data.output).toMatchObject({
      output: expect.stringContaining('shipped'),
    });
    // Only the call after the tool result: the first turn came from the log.
    expect(stack.fake.callCount).toBe(callsBefore + 1);

    const rejectRun = await start('guarded', { input: 'where is A-1002?' });
    await until(rejectRun, has('run.awaiting'), 'approval wait');
    const [toReject] = (await json<{ requests: HumanRequest[] }>(await stack.api(`/v1/runs/${rejectRun}/requests`))).requests;
    const rejected = await post(`/v1/runs/${rejectRun}/requests/${toReject.requestId}/respond`, {
      decision: 'reject',
      callId: toReject.call!.callId,
      name: toReject.call!.name,
      argumentsHash: toReject.call!.argumentsHash,
      message: 'Do not look up orders for this customer',
    });
    expect(rejected.status).toBe(202);
    const after = await until(rejectRun, has('run.completed'), 'completion after rejection');
    expect(after.some((e) => e.type === 'tool.called')).toBe(false);
    expect((after.at(-1) as Extract<RunEvent, { type: 'run.completed' }>).data.output).toMatchObject({
      escalated: true,
      output: expect.stringContaining('Do not look up orders'),
    });

    // Nobody decides in time: the call never runs, the model is not asked again, the node leaves on `timeout`.
    expect(
      (
        await put('/v1/workflows/lookup-timed', {
          kind: 'graph',
          nodes: [
            {
              id: 'support',
              type: 'agent',
              model: 'compatible:steps',
              prompt: 'Where is A-1002?',
              tools: ['lookup_order'],
              approval: true,
              approval_timeout_ms: 1_000,
            },
            { id: 'queued_for_human', type: 'set', values: { queued: true } },
          ],
          edges: [{ from: 'support', to: 'queued_for_human', handle: 'timeout' }],
        })
      ).status,
    ).toBe(201);
    const callsBeforeTimeout = stack.fake.callCount;
    const unattended = await start('lookup-timed');
    const expired = await until(unattended, has('run.completed'), 'completion by approval timeout', 30_000);
    expect(expired.find((e) => e.type === 'approval.requested')).toMatchObject({ data: { expiresAt: expect.any(String) } });
    expect(expired.find((e) => e.type === 'approval.resolved')).toMatchObject({
      data: { decision: 'rejected', timedOut: true, answeredBy: TIMEOUT, callId: 'call_look' },
    });
    expect(expired.some((e) => e.type === 'tool.called')).toBe(false);
    expect((expired.at(-1) as Extract<RunEvent, { type: 'run.completed' }>).data.output).toMatchObject({ queued: true });
    expect(stack.fake.callCount).toBe(callsBeforeTimeout + 1);
    const [closed] = (await json<{ requests: HumanRequest[] }>(await stack.api(`/v1/runs/${unattended}/requests`))).requests;
    expect(closed).toMatchObject({ status: 'timed_out' });
    const late = await post(`/v1/runs/${unattended}/requests/${closed.requestId}/respond`, {
      decision: 'approve',
      callId: closed.call!.callId,
      name: closed.call!.name,
      argumentsHash: closed.call!.argumentsHash,
    });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ code: 'request_closed' });
    stack.fake.reply = slowModel as never;
  });

  it('continues on the timeout edge when nobody answers in time, and cancel closes a waiting run and its requests', async () => {
    expect(
      (
        await put('/v1/workflows/timed', {
          kind: 'graph',
          nodes: [
            { id: 'ask', type: 'human', prompt: 'quick?', form: 'boolean', timeout_ms: 1_000 },
            { id: 'fallback', type: 'set', values: { decided: 'by default' } },
          ],
          edges: [{ from: 'ask', to: 'fallback', handle: 'timeout' }],
        })
      ).status,
    ).toBe(201);
    const timed = await start('timed');
    const events = await until(timed, has('run.completed'), 'completion by timeout', 30_000);
    expect(events.find((e) => e.type === 'input.answered')).toMatchObject({ data: { timedOut: true, answeredBy: TIMEOUT } });
    expect((events.at(-1) as Extract<RunEvent, { type: 'run.completed' }>).data.output).toMatchObject({ decided: 'by default' });

    const waiting = await start('review', { input: 'to be canceled' });
    await until(waiting, has('run.awaiting'), 'wait');
    const canceled = await post(`/v1/runs/${waiting}/cancel`, { reason: 'changed my mind' });
    expect(canceled.status).toBe(200);
    expect((await log(waiting)).at(-1)).toMatchObject({ type: 'run.canceled' });
    const [closed] = (await json<{ requests: HumanRequest[] }>(await stack.api(`/v1/runs/${waiting}/requests`))).requests;
    expect(closed.status).toBe('canceled');
    const late = await post(`/v1/runs/${waiting}/requests/${closed.requestId}/respond`, { text: 'too late' });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ code: 'request_closed' });
  });

  it('cancels a streamed run whose client leaves only if asked to; resumes on another version only with the same structure', async () => {
    const stream = async (body: unknown) => {
      const { frames } = await stack.sse(
        `/v1/workflows/review/runs`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
        (f) => f.event !== 'run.awaiting',
      );
      return (JSON.parse(frames[0].data) as RunEvent).runId;
    };
    const dropped = await stream({ input: 'drop', cancelOnDisconnect: true });
    const kept = await stream({ input: 'keep' });
    await until(dropped, has('run.canceled'), 'cancel on disconnect', 15_000);
    expect((await log(kept)).at(-1)).toMatchObject({ type: 'run.awaiting' });

    const review = (publish: string, extra = false) => ({
      kind: 'graph',
      nodes: [
        { id: 'draft', type: 'llm', model: 'compatible:steps', prompt: 'draft for {{input}}', output_key: 'draft', checkpoint: true },
        { id: 'approve', type: 'human', prompt: 'Publish "{{draft}}"?', form: 'text' },
        { id: 'publish', type: 'set', values: { published: publish } },
        ...(extra ? [{ id: 'notify', type: 'set', values: { notified: true } }] : []),
      ],
      edges: [{ from: 'draft', to: 'approve' }, { from: 'approve', to: 'publish' }, ...(extra ? [{ from: 'publish', to: 'notify' }] : [])],
    });
    const v2 = await json<{ version: number }>(await put('/v1/workflows/review', review('v2: {{approve.text}}')));
    const v3 = await json<{ version: number }>(await put('/v1/workflows/review', review('v3', true)));
    const [request] = (await json<{ requests: HumanRequest[] }>(await stack.api(`/v1/runs/${kept}/requests`))).requests;
    const mismatch = await post(`/v1/runs/${kept}/requests/${request.requestId}/respond`, { text: 'ok', definitionVersion: v3.version });
    expect(mismatch.status).toBe(409);
    expect(await mismatch.json()).toMatchObject({ code: 'definition_mismatch' });
    expect(
      (await post(`/v1/runs/${kept}/requests/${request.requestId}/respond`, { text: 'ok', definitionVersion: v2.version })).status,
    ).toBe(202);
    const events = await until(kept, has('run.completed'), 'completion on v2');
    expect(events.find((e) => e.type === 'run.resumed')).toMatchObject({ data: { reason: 'answered', definitionVersion: v2.version } });
    expect((events.at(-1) as Extract<RunEvent, { type: 'run.completed' }>).data.output).toMatchObject({ published: 'v2: ok' });
  });
});
