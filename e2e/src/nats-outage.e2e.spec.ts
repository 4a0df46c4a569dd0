import type { RunEvent } from '@spindle/contracts';
import {
  startNatsServer,
  startStack,
  stopProcess,
  testEnv,
  type FakeOpenAIReply,
  type NatsServerProcess,
  type Stack,
} from '@spindle/testing';

let releaseHeld!: () => void;
const held = new Promise<void>((resolve) => (releaseHeld = resolve));
let heldCalls = 0;

/** The provider answers the held prompt only when the test lets it, after NATS went down. */
async function heldModel(body: { messages?: Array<{ role: string; content: unknown }> }): Promise<FakeOpenAIReply> {
  const prompt = String(body.messages?.find((m) => m.role === 'user')?.content ?? '');
  if (prompt === 'the held question') {
    heldCalls++;
    await held;
  }
  return { text: `answer to ${prompt}`, usage: { prompt_tokens: 4, completion_tokens: 3 } };
}

/**
 * Issue 9, item 1: NATS goes away during a model call and comes back. The provider's answer is
 * recorded once NATS is back and the run completes: a failure to write the log is never the
 * provider's. Meanwhile the services say they are not ready, and a runner asked to stop while
 * its bus is gone exits on its own.
 */
describe('a NATS outage during a run', () => {
  let nats: NatsServerProcess;
  let stack: Stack;
  const post = (path: string, body: unknown) =>
    stack.api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  /** The run's log, or nothing while the gateway cannot read it (503 during the outage). */
  const events = async (runId: string): Promise<RunEvent[]> => {
    const res = await stack.api(`/v1/runs/${runId}/events`);
    return res.status === 200 ? ((await res.json()) as { events: RunEvent[] }).events : [];
  };
  /**
   * The run over SSE as a browser's EventSource follows it: a stream that ends before the run's
   * end (NATS gone under the gateway) is opened again with `Last-Event-ID`, until the end.
   */
  const followReconnecting = async (runId: string): Promise<number[]> => {
    const seqs: number[] = [];
    for (let attempt = 0; attempt < 200; attempt++) {
      const last = seqs.at(-1);
      const ended = await stack
        .sse(`/v1/runs/${runId}/events`, last ? { headers: { 'last-event-id': String(last) } } : {}, (frame) => {
          if (frame.id !== undefined) seqs.push(Number(frame.id));
        })
        .then(
          ({ frames }) => frames.some((f) => f.event === 'run.completed'),
          () => false,
        );
      if (ended) return seqs;
      await new Promise((r) => setTimeout(r, 250));
    }
    return seqs;
  };
  const readiness = (port: number) =>
    fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status,
      () => 0,
    );

  beforeAll(async () => {
    nats = await startNatsServer();
    stack = await startStack({
      infra: { natsUrl: nats.url, databaseUrl: testEnv().databaseUrl },
      reply: heldModel as never,
      runnerEnv: { RUNNER_ACK_WAIT_MS: '5000', RUNNER_SHUTDOWN_GRACE_MS: '2000', SHUTDOWN_DEADLINE_MS: '5000' },
    });
    const definition = {
      kind: 'graph',
      nodes: [
        { id: 'ask', type: 'llm', model: 'compatible:held', prompt: 'the held question', output_key: 'answer' },
        { id: 'after', type: 'llm', model: 'compatible:held', prompt: 'a follow-up', output_key: 'follow_up' },
      ],
      edges: [{ from: 'ask', to: 'after' }],
    };
    const saved = await stack.api(`/v1/workflows/held`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(definition),
    });
    expect(saved.status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
    await nats?.stop();
  });

  it('records the answer once NATS is back and completes the run, without asking the provider again', async () => {
    const { runId } = (await (await post('/v1/workflows/held/runs', { input: 'q' })).json()) as { runId: string };
    while (heldCalls === 0) await new Promise((r) => setTimeout(r, 20));
    // A client follows the run live across the outage (on the gateway's one consumer of the log).
    const followed = followReconnecting(runId);
    while ((await events(runId)).length === 0) await new Promise((r) => setTimeout(r, 20));

    await nats.kill();
    // A service whose JetStream does not answer is not ready.
    const runner = stack.processes.find((p) => p.name === 'runner')!;
    let status = await readiness(runner.port);
    for (let i = 0; i < 50 && status === 200; i++) status = await readiness(runner.port);
    expect(status).toBe(503);
    releaseHeld();
    await new Promise((r) => setTimeout(r, 1_000));
    await nats.start();

    let log: RunEvent[] = [];
    for (let i = 0; i < 300 && log.at(-1)?.type !== 'run.completed'; i++) {
      log = await events(runId).catch(() => []);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(log.at(-1)).toMatchObject({
      type: 'run.completed',
      data: { output: { answer: 'answer to the held question', follow_up: 'answer to a follow-up' } },
    });
    expect(log.filter((e) => e.type === 'model.failed' || e.type === 'node.failed')).toEqual([]);
    expect(log.filter((e) => e.type === 'model.completed' && e.nodeId === 'ask')).toHaveLength(1);
    expect(heldCalls).toBe(1);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    // The follower saw the whole log once, in order, whatever it took to reconnect.
    expect(await followed).toEqual(log.map((e) => e.seq));
  });

  it('lets a runner whose bus is gone exit on its own when asked to stop', async () => {
    const runner = stack.processes.find((p) => p.name === 'runner' && p.child.exitCode === null)!;
    await nats.kill();
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      runner.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    // stopProcess falls back to SIGKILL after 10 s; the runner's own deadline (5 s here) comes first.
    await stopProcess(runner.child, 'SIGTERM');
    expect((await exited).signal).not.toBe('SIGKILL');
    await nats.start();
  });
});
