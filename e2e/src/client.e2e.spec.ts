import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createSpindleClient, isSpindleApiError, type SpindleClient } from '@spindle/client';
import {
  apiKeyListSchema,
  authConfigSchema,
  meSchema,
  runListSchema,
  tenantListSchema,
  workflowGraphSchema,
  workflowListSchema,
  workflowVersionsSchema,
  catalogDiffSchema,
  type RunEvent,
} from '@spindle/contracts';
import { startStack, stopProcess, type FakeOpenAIReply, type Stack } from '@spindle/testing';

const HELLO = JSON.parse(readFileSync(resolve(__dirname, '../../examples/hello-workflow.json'), 'utf8')) as unknown;

/** Model calls wait here while a test holds them, so the run is mid-way because the test made it so. */
let heldModels: Promise<void> = Promise.resolve();
function holdModelCalls(): () => void {
  let release!: () => void;
  heldModels = new Promise((r) => (release = r));
  return release;
}
async function provider(): Promise<FakeOpenAIReply> {
  await heldModels;
  return { text: 'fine', usage: { prompt_tokens: 5, completion_tokens: 1 } };
}

/** Two model calls one after the other: the gateway can be away between them. */
const TWO_CALLS = {
  kind: 'graph',
  nodes: [
    { id: 'first', type: 'llm', model: 'compatible:m', prompt: 'one {{input}}', output_key: 'a' },
    { id: 'second', type: 'llm', model: 'compatible:m', prompt: 'two {{a}}', output_key: 'b' },
  ],
  edges: [{ from: 'first', to: 'second' }],
};

describe('@spindle/client against the real stack', () => {
  let stack: Stack;
  let spindle: SpindleClient;
  const jsonEvents = async (runId: string) =>
    ((await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] }).events;

  beforeAll(async () => {
    stack = await startStack({ reply: provider as never });
    spindle = createSpindleClient({ baseUrl: stack.gatewayUrl, token: stack.adminKey });
    await spindle.workflows.put('hello', HELLO);
    await spindle.workflows.put('two-calls', TWO_CALLS);
  });
  afterAll(() => stack?.stop());

  it('starts a workflow and follows it to the end: exactly the events of the JSON log, with the tokens', async () => {
    const { runId } = await spindle.runs.start('hello', { input: { name: 'Ada' } });
    const tokens: string[] = [];
    const followed: RunEvent[] = [];
    for await (const event of spindle.runs.follow(runId, { onToken: (t) => tokens.push(t.delta) })) followed.push(event);
    expect(followed.at(-1)?.type).toBe('run.completed');
    expect(followed).toEqual(await jsonEvents(runId));
    expect(await spindle.runs.events(runId)).toMatchObject({ events: followed, lastSeq: followed.length, terminal: true });
    expect(tokens.join('')).toBe('Hello Ada, what a fine day to run a workflow!');
  });

  it('follows a run across a gateway restart: every event exactly once, in order', async () => {
    const release = holdModelCalls();
    const gateway = stack.processes.find((p) => p.name === 'gateway' && p.child.exitCode === null)!;
    const followed: RunEvent[] = [];
    const states: string[] = [];
    let modelStarted!: () => void;
    const firstCallMade = new Promise<void>((r) => (modelStarted = r));
    let done: Promise<void> | undefined;
    try {
      const { runId } = await spindle.runs.start('two-calls', { input: 'x' });
      done = (async () => {
        const follow = spindle.runs.follow(runId, {
          reconnect: { initialDelayMs: 100, maxDelayMs: 500 },
          onConnection: (s) => states.push(s),
        });
        for await (const event of follow) {
          followed.push(event);
          if (event.type === 'model.started') modelStarted();
        }
      })();
      await firstCallMade;
      await stopProcess(gateway.child);
      // The run goes on while the gateway is away (the second model call is made): its events land in the log, not in the stream.
      const calls = stack.fake.callCount;
      release();
      while (stack.fake.callCount < calls + 1) await new Promise((r) => setTimeout(r, 50));
      await stack.startService('gateway', { PORT: String(gateway.port) });
      await done;
      const logged = await jsonEvents(runId);
      expect(logged.at(-1)?.type).toBe('run.completed');
      expect(followed).toEqual(logged);
      expect(followed.map((e) => e.seq)).toEqual(logged.map((_, i) => i + 1));
      expect(states).toContain('retrying');
    } finally {
      release();
    }
  });

  it("answers with what the contracts' schemas (its types) say, and reads the OpenAPI document", async () => {
    expect(meSchema.safeParse(await spindle.me()).error).toBeUndefined();
    expect(authConfigSchema.safeParse(await spindle.authConfig()).error).toBeUndefined();
    expect(workflowListSchema.safeParse(await spindle.workflows.list()).error).toBeUndefined();
    expect(workflowVersionsSchema.safeParse(await spindle.workflows.versions('hello')).error).toBeUndefined();
    expect(catalogDiffSchema.safeParse(await spindle.workflows.diff('hello', 1, 1)).error).toBeUndefined();
    expect(workflowGraphSchema.safeParse(await spindle.workflows.graph('hello')).error).toBeUndefined();
    expect(runListSchema.safeParse(await spindle.runs.list({ limit: 2 })).error).toBeUndefined();
    expect(apiKeyListSchema.safeParse(await spindle.keys.list()).error).toBeUndefined();
    expect(tenantListSchema.safeParse(await spindle.tenants.list()).error).toBeUndefined();

    const document = await createSpindleClient({ baseUrl: stack.gatewayUrl }).openapi();
    expect(document).toEqual(await (await fetch(`${stack.gatewayUrl}/v1/openapi.json`)).json());
    expect(document).toMatchObject({ openapi: expect.stringMatching(/^3\.1\./) });
    expect(Object.keys(document.paths as object)).toContain('/v1/runs/{id}/events');
  });

  it('searches runs by the words of their input, sorted and paged by the trace projection, refusing what it cannot answer', async () => {
    const names = ['Grace Hopper', 'Grace Kelly', 'Alan Turing'];
    const started = [];
    for (const name of names) started.push((await spindle.runs.start('hello', { input: { name } })).runId);
    for (const runId of started) for await (const event of spindle.runs.follow(runId)) void event;
    // The trace projection applies the ends after the log has them.
    const search = async () => {
      for (;;) {
        const page = await spindle.runs.list({ q: 'grace', workflow: 'hello', status: 'completed', limit: 1 });
        if (page.nextCursor) return page;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const first = await search();
    const second = await spindle.runs.list({ q: 'grace', workflow: 'hello', status: 'completed', limit: 1, cursor: first.nextCursor! });
    expect([...first.runs, ...second.runs].map((r) => r.runId)).toEqual([started[1], started[0]]);
    expect(second.nextCursor).toBeNull();
    expect((await spindle.runs.list({ q: started[2]!, limit: 5 })).runs.map((r) => r.runId)).toEqual([started[2]]);

    const refused = async (query: Record<string, string>) => {
      const res = await stack.api(`/v1/runs?${new URLSearchParams(query)}`);
      const body = (await res.json()) as { code: string; errors?: Array<{ field: string }> };
      return [res.status, body.code, body.errors?.map((e) => e.field)];
    };
    const byTokens = await spindle.runs.list({ sort: 'tokens', limit: 1 });
    expect(await refused({ cursor: byTokens.nextCursor! })).toEqual([400, 'validation_failed', ['query.cursor']]);
    expect(await refused({ q: 'a\u0000b' })).toEqual([400, 'validation_failed', ['query.q']]);
    expect(await refused({ from: 'yesterday' })).toEqual([400, 'validation_failed', ['query.from']]);
    expect(await refused({ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' })).toEqual([400, 'validation_failed', ['query.from']]);
    expect(await refused({ errorCode: 'Not A Code' })).toEqual([400, 'validation_failed', ['query.errorCode']]);
    expect(await refused({ parameter: 'no-equals-sign' })).toEqual([400, 'validation_failed', ['query.parameter']]);
    expect(await refused({ sort: 'name' })).toEqual([400, 'validation_failed', ['query.sort']]);
    expect(await refused({ order: 'sideways' })).toEqual([400, 'validation_failed', ['query.order']]);
  });

  it('rejects with typed errors carrying code and status', async () => {
    const missing = await spindle.runs.get('no-such-run').catch((e: unknown) => e);
    expect(isSpindleApiError(missing, 'run_not_found')).toBe(true);
    expect(missing).toMatchObject({ status: 404, code: 'run_not_found' });

    const invalid = await spindle.runs.start('hello', { version: 0 }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ name: 'SpindleApiError', status: 400, code: 'validation_failed' });
    expect((invalid as { errors: Array<{ field: string }> }).errors.map((e) => e.field)).toContain('version');

    const anonymous = await createSpindleClient({ baseUrl: stack.gatewayUrl })
      .me()
      .catch((e: unknown) => e);
    expect(anonymous).toMatchObject({ name: 'SpindleApiError', status: 401, code: 'unauthenticated' });
  });
});
