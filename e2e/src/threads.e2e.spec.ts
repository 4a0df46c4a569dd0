import type { FakeOpenAIRequestBody } from '@spindle/testing';
import type { RunEvent, ThreadRunAccepted, ThreadRuns, ThreadState } from '@spindle/contracts';
import { eventually, providerGate, startStack, type Stack } from '@spindle/testing';

/** An agent that remembers the conversation under `messages`, after a step that leaves a checkpoint. */
const chat = {
  kind: 'graph',
  nodes: [
    { id: 'prepare', type: 'set', values: { prepared: true } },
    { id: 'assistant', type: 'agent', model: 'compatible:fake-model', prompt: '{{input}}', memory_key: 'messages', output_key: 'answer' },
  ],
  edges: [{ from: 'prepare', to: 'assistant' }],
};
const asks = { kind: 'graph', nodes: [{ id: 'ask', type: 'human', prompt: 'go on?', form: 'boolean' }] };

const userTexts = (body: FakeOpenAIRequestBody) => (body.messages ?? []).filter((m) => m.role === 'user').map((m) => String(m.content));

describe('threads: conversations across runs', () => {
  let stack: Stack;
  const gate = providerGate();
  const { hold, release } = gate;

  const post = async <T>(path: string, body: unknown) => {
    const res = await stack.api(path, { method: 'POST', body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as T };
  };
  const newThread = async () => (await post<{ threadId: string }>('/v1/threads', { metadata: { user: 'ada' } })).body.threadId;
  const startOn = (threadId: string, body: Record<string, unknown>) => post<ThreadRunAccepted>(`/v1/threads/${threadId}/runs`, body);
  const runsOf = async (threadId: string) => ((await (await stack.api(`/v1/threads/${threadId}/runs`)).json()) as ThreadRuns).runs;
  const statuses = async (threadId: string) => (await runsOf(threadId)).map((r) => r.status);
  const queuedState = async (runId: string) => {
    const { events } = (await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] };
    return (events[0] as RunEvent & { data: { state: Record<string, unknown> } }).data.state;
  };

  beforeAll(async () => {
    stack = await startStack();
    stack.fake.reply = async (body) => {
      await gate.passed();
      return { text: `You said: ${userTexts(body).join(' | ')}` };
    };
    for (const [name, definition] of Object.entries({ chat, asks }))
      expect((await stack.api(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(definition) })).status).toBe(201);
  });
  // A test that fails while it holds the provider must not hold it for the next one.
  afterEach(() => release());
  afterAll(async () => {
    await stack?.stop();
  });

  it('goes on turn by turn: the third run sees the first turn, and the thread keeps its state and history', async () => {
    const threadId = await newThread();
    expect((await (await stack.api(`/v1/threads/${threadId}`)).json()) as object).toMatchObject({
      threadId,
      metadata: { user: 'ada' },
      status: 'idle',
      stateFromRun: null,
      runs: 0,
    });
    const turns = ['My name is Ada.', 'I like tea.', 'What is my name?'];
    const runIds: string[] = [];
    for (const input of turns) {
      const started = await startOn(threadId, { workflow: 'chat', input });
      expect(started).toMatchObject({ status: 202, body: { threadId, status: 'queued', position: runIds.length + 1 } });
      runIds.push(started.body.runId);
      await eventually(async () => expect((await statuses(threadId)).at(-1)).toBe('completed'), 200);
    }
    // The provider's third request carried the whole conversation, the first turn included.
    const third = stack.fake.calls.at(-1)?.body as FakeOpenAIRequestBody;
    expect(userTexts(third)).toEqual(turns);
    expect((third.messages ?? []).filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([
      'You said: My name is Ada.',
      'You said: My name is Ada. | I like tea.',
    ]);
    const state = (await (await stack.api(`/v1/threads/${threadId}/state`)).json()) as ThreadState;
    expect(state).toMatchObject({ threadId, stateFromRun: runIds[2], state: { input: turns[2], prepared: true } });
    expect((state.state.messages as unknown[]).length).toBe(6);
    expect((await runsOf(threadId)).map((r) => [r.position, r.runId, r.status])).toEqual(
      runIds.map((runId, i) => [i + 1, runId, 'completed']),
    );
  });

  it('rejects a run while the one before waits on a person (409 thread_busy), and enqueues one that starts where it ended', async () => {
    const threadId = await newThread();
    const first = (await startOn(threadId, { workflow: 'asks' })).body.runId;
    await eventually(async () => expect(await statuses(threadId)).toEqual(['awaiting_input']), 200);

    const refused = await startOn(threadId, { workflow: 'chat', input: 'hello?' });
    expect(refused).toMatchObject({ status: 409, body: { code: 'thread_busy' } });
    const [queued, again] = await Promise.all([
      startOn(threadId, { workflow: 'chat', input: 'after you', multitaskStrategy: 'enqueue' }),
      startOn(threadId, { workflow: 'chat', input: 'and me', multitaskStrategy: 'enqueue' }),
    ]);
    expect([queued.body.status, again.body.status]).toEqual(['pending', 'pending']);
    expect(await statuses(threadId)).toEqual(['awaiting_input', 'pending', 'pending']);

    const { requests } = (await (await stack.api(`/v1/runs/${first}/requests`)).json()) as { requests: Array<{ requestId: string }> };
    expect((await post(`/v1/runs/${first}/requests/${requests[0].requestId}/respond`, { approved: true })).status).toBe(202);
    await eventually(async () => expect(await statuses(threadId)).toEqual(['completed', 'completed', 'completed']), 200);
    // Each started from the state the one before it left, in the order the thread gave them.
    expect([queued.body.position, again.body.position].sort()).toEqual([2, 3]);
    const [earlier, later] = queued.body.position < again.body.position ? [queued, again] : [again, queued];
    const firstInput = earlier === queued ? 'after you' : 'and me';
    expect(await queuedState(earlier.body.runId)).toMatchObject({ ask: { approved: true }, input: firstInput });
    expect(await queuedState(later.body.runId)).toMatchObject({ ask: { approved: true }, answer: `You said: ${firstInput}` });
    expect(((await queuedState(later.body.runId)).messages as unknown[]).length).toBe(2);
  });

  it('interrupts a running run: it is canceled, and the new one starts from its latest checkpoint', async () => {
    const threadId = await newThread();
    hold();
    const calls = stack.fake.calls.length;
    const first = (await startOn(threadId, { workflow: 'chat', input: 'a long question' })).body.runId;
    // The first run is in its model call, after `prepare` left a checkpoint.
    await eventually(async () => expect(stack.fake.calls.length).toBe(calls + 1), 200);
    const second = await startOn(threadId, { workflow: 'chat', input: 'never mind', multitaskStrategy: 'interrupt' });
    // Started at once when the cancel settled before the answer, else as soon as it does.
    expect(['pending', 'queued']).toContain(second.body.status);
    release();
    await eventually(async () => expect(await statuses(threadId)).toEqual(['canceled', 'completed']), 200);
    expect(await queuedState(second.body.runId)).toMatchObject({ prepared: true, input: 'never mind' });
    expect(((await (await stack.api(`/v1/runs/${first}`)).json()) as { status: string }).status).toBe('canceled');
  });

  it("rolls back a running run: it is canceled and left out of the thread's state", async () => {
    const threadId = await newThread();
    const kept = (await startOn(threadId, { workflow: 'chat', input: 'keep this' })).body.runId;
    await eventually(async () => expect(await statuses(threadId)).toEqual(['completed']), 200);
    hold();
    const calls = stack.fake.calls.length;
    const dropped = (await startOn(threadId, { workflow: 'chat', input: 'drop this' })).body.runId;
    await eventually(async () => expect(stack.fake.calls.length).toBe(calls + 1), 200);
    const last = await startOn(threadId, { workflow: 'chat', input: 'instead', multitaskStrategy: 'rollback' });
    release();
    await eventually(async () => expect(await statuses(threadId)).toEqual(['completed', 'rolled_back', 'completed']), 200);
    expect((await runsOf(threadId)).map((r) => r.runId)).toEqual([kept, dropped, last.body.runId]);
    // It went on from the kept run: the dropped turn is in no message it saw.
    const messages = (await queuedState(last.body.runId)).messages as Array<{ content: string }>;
    expect(messages.map((m) => m.content)).toEqual(['keep this', 'You said: keep this']);
    const state = (await (await stack.api(`/v1/threads/${threadId}/state`)).json()) as ThreadState;
    expect(state.stateFromRun).toBe(last.body.runId);
  });

  it('changes the state explicitly, merged or replaced, as a record in the log and the audit trail; never while busy', async () => {
    const threadId = await newThread();
    expect((await startOn(threadId, { workflow: 'chat', input: 'hello' })).status).toBe(202);
    await eventually(async () => expect(await statuses(threadId)).toEqual(['completed']), 200);

    const merged = await post<ThreadState>(`/v1/threads/${threadId}/state`, { values: { mood: 'happy' } });
    expect(merged).toMatchObject({ status: 200, body: { threadId, state: { input: 'hello', prepared: true, mood: 'happy' } } });
    await eventually(async () => expect(await statuses(threadId)).toEqual(['completed', 'completed']), 200);
    // The change is a run of its own in the log: who did it, and the state it made.
    const { events } = (await (await stack.api(`/v1/runs/${merged.body.stateFromRun}/events`)).json()) as { events: RunEvent[] };
    expect(events.map((e) => e.type)).toEqual(['run.queued', 'run.completed']);
    expect(events[0]).toMatchObject({ data: { workflow: { name: '_thread_state' }, startedBy: { kind: 'key' } } });
    expect(events[1]).toMatchObject({ data: { output: merged.body.state } });
    // It is a record, not work: the runs list, a search and the overview leave it out; the thread's history keeps it.
    const listed = async (query: string) =>
      ((await (await stack.api(`/v1/runs?limit=200${query}`)).json()) as { runs: Array<{ runId: string; workflow: { name: string } }> })
        .runs;
    const changeId = merged.body.stateFromRun;
    expect((await listed('')).map((r) => r.runId)).not.toContain(changeId);
    expect((await listed('')).some((r) => r.workflow.name.startsWith('_'))).toBe(false);
    expect((await listed('&q=happy')).map((r) => r.runId)).not.toContain(changeId);
    expect((await listed(`&q=${changeId}`)).map((r) => r.runId)).toEqual([]);
    expect((await listed('&internal=include')).map((r) => r.runId)).toContain(changeId);
    expect((await listed(`&q=${changeId}&internal=include`)).map((r) => r.runId)).toEqual([changeId]);
    const overview = (await (await stack.api('/v1/overview?days=1')).json()) as { from: string; totals: { runs: number } };
    const since = `&from=${encodeURIComponent(overview.from)}`;
    expect(overview.totals.runs).toBe((await listed(since)).length);
    expect((await listed(`${since}&internal=include`)).length).toBeGreaterThan(overview.totals.runs);
    expect((await runsOf(threadId)).map((r) => r.runId)).toContain(changeId);

    const replaced = await post<ThreadState>(`/v1/threads/${threadId}/state`, { values: { messages: [] }, mode: 'replace' });
    expect(replaced.body.state).toEqual({ messages: [] });
    await eventually(async () => expect(await statuses(threadId)).toEqual(['completed', 'completed', 'completed']), 200);
    // The next run starts from it: the conversation was forgotten.
    expect((await startOn(threadId, { workflow: 'chat', input: 'who am I?' })).status).toBe(202);
    await eventually(async () => expect((await statuses(threadId)).at(-1)).toBe('completed'), 200);
    expect(userTexts(stack.fake.calls.at(-1)?.body as FakeOpenAIRequestBody)).toEqual(['who am I?']);
    const audit = (await (await stack.api('/v1/audit?action=thread.state_changed')).json()) as {
      entries: Array<{ target: { id: string } }>;
    };
    expect(audit.entries.filter((e) => e.target.id === threadId)).toHaveLength(2);

    hold();
    await startOn(threadId, { workflow: 'chat', input: 'slow' });
    expect(await post(`/v1/threads/${threadId}/state`, { values: { x: 1 } })).toMatchObject({ status: 409, body: { code: 'thread_busy' } });
    expect(await post(`/v1/threads/${threadId}/state`, { values: [] })).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
  });

  it('refuses what names nothing or does not fit', async () => {
    const threadId = await newThread();
    const code = async (res: Promise<{ status: number; body: unknown }>) => {
      const { status, body } = await res;
      return { status, code: (body as { code?: string }).code };
    };
    expect(await code(startOn('thr_01JN0000000000000000000000', { workflow: 'chat' }))).toEqual({ status: 404, code: 'thread_not_found' });
    expect(await code(startOn('not-a-thread', { workflow: 'chat' }))).toEqual({ status: 404, code: 'thread_not_found' });
    expect(await code(startOn(threadId, { workflow: 'chat', multitaskStrategy: 'whenever' }))).toEqual({
      status: 400,
      code: 'validation_failed',
    });
    expect(await code(startOn(threadId, { workflow: 'nope' }))).toEqual({ status: 404, code: 'workflow_not_found' });
    expect(await code(startOn(threadId, { workflow: 'chat', state: { x: 1 } }))).toEqual({ status: 400, code: 'validation_failed' });
    expect(await code(post('/v1/threads', { metadata: 'not an object' }))).toEqual({ status: 400, code: 'validation_failed' });
    for (const path of ['/v1/threads/thr_01JN0000000000000000000000', '/v1/threads/thr_01JN0000000000000000000000/state'])
      expect({ path, status: (await stack.api(path)).status }).toEqual({ path, status: 404 });
    // Nothing was started by any of them.
    expect(await runsOf(threadId)).toEqual([]);
  });

  it('lists threads newest first, a page at a time', async () => {
    const page = async (query: string) =>
      (await (await stack.api(`/v1/threads${query}`)).json()) as { threads: Array<{ threadId: string }>; nextCursor: string | null };
    const all = (await page('?limit=200')).threads.map((t) => t.threadId);
    expect(all.length).toBeGreaterThanOrEqual(5);
    const first = await page('?limit=2');
    const second = await page(`?limit=2&cursor=${first.nextCursor}`);
    expect([...first.threads, ...second.threads].map((t) => t.threadId)).toEqual(all.slice(0, 4));
    expect((await stack.api('/v1/threads?cursor=bm90LWEtY3Vyc29y')).status).toBe(400);
  });
});
