import { context } from '@opentelemetry/api';
import { connectBus, deleteStreams, EMPTY_LOG, provisionStreams, readRunLog, RunLogWriter, type Bus } from '@spindle/bus';
import type { RunEvent } from '@spindle/contracts';
import type { FunctionRegistry, ModelPort } from '@spindle/engine';
import { createModelPort } from '@spindle/llm';
import { testEnv, testNamespace } from '@spindle/testing';
import { executeRunCommand } from './run-executor';
import { testExecutorDeps } from './runner-test.fixture';

/** Two model calls with an effect between them (a function not declared pure), then a pure step. */
const definition = {
  kind: 'graph',
  nodes: [
    { id: 'ask', type: 'llm', model: 'offline:echo', prompt: 'first question' },
    { id: 'act', type: 'function', function: 'charge_card' },
    { id: 'again', type: 'llm', model: 'offline:echo', prompt: 'second question' },
    { id: 'done', type: 'set', values: { finished: true } },
  ],
  edges: [
    { from: 'ask', to: 'act' },
    { from: 'act', to: 'again' },
    { from: 'again', to: 'done' },
  ],
};

/** What left the process, in order: each model prompt and each effect. */
type Effect = { kind: 'model'; prompt: string } | { kind: 'charge' };

/**
 * The runner process dying with a batch built and not acknowledged: from the `crashAt`-th message
 * of the run on, the process's connection is gone. `stored` decides whether that last message
 * reached the server (its ack lost with the process) or not. Everything else goes to the real bus.
 */
function dyingBus(bus: Bus, crashAt: number, stored: boolean): { bus: Bus; dead: Promise<void> } {
  let published = 0;
  let die!: () => void;
  const dead = new Promise<void>((resolve) => (die = resolve));
  const gone = () => Object.assign(new Error('connection closed'), { name: 'ClosedConnectionError' });
  const js = new Proxy(bus.js, {
    get(target, prop, receiver) {
      if (prop !== 'publish') return Reflect.get(target, prop, receiver);
      return async (...args: Parameters<typeof target.publish>) => {
        if (published >= crashAt) throw gone();
        published++;
        if (published < crashAt) return target.publish(...args);
        if (stored) await target.publish(...args);
        die();
        throw gone();
      };
    },
  });
  return { bus: { ...bus, js }, dead };
}

describe('a runner that dies between building a batch and its ack', () => {
  let bus: Bus;
  let runs = 0;
  const parent = { attempt: 1, parent: context.active() };

  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'runner-crash-test' });
    await provisionStreams(bus);
  });
  afterAll(async () => {
    await deleteStreams(bus);
    await bus.close();
  });

  /** Ports that record every effect the run makes on the world. */
  function worldFor(effects: Effect[]): { model: ModelPort; functions: FunctionRegistry } {
    const offline = createModelPort({});
    return {
      model: {
        generate: (request) => {
          const last = request.messages.at(-1);
          effects.push({ kind: 'model', prompt: typeof last?.content === 'string' ? last.content : '' });
          return offline.generate(request);
        },
      },
      functions: {
        get: (name) => (name === 'charge_card' ? () => void effects.push({ kind: 'charge' }) : undefined),
        isPure: () => false,
      },
    };
  }

  async function queue(runId: string): Promise<void> {
    await new RunLogWriter(bus, runId, EMPTY_LOG).write({
      type: 'run.queued',
      spanId: 'root',
      path: 'root',
      data: { workflow: { name: 'w', version: 1 }, input: null, state: { input: null }, definition },
    });
  }

  /** Effects the log says completed: a model call by its completion, the charge by its node's. */
  function completedIn(events: readonly RunEvent[]): Effect[] {
    const prompts = new Map(
      events.filter((e) => e.type === 'model.started').map((e) => [e.spanId, (e.data as { prompt?: string }).prompt]),
    );
    return events.flatMap((e): Effect[] => {
      if (e.type === 'model.completed') return [{ kind: 'model', prompt: prompts.get(e.spanId) ?? '' }];
      if (e.type === 'node.completed' && e.nodeId === 'act') return [{ kind: 'charge' }];
      return [];
    });
  }

  /** Effects the log says were started (what a runner may have done before it died). */
  function startedIn(events: readonly RunEvent[]): Effect[] {
    return events.flatMap((e): Effect[] => {
      if (e.type === 'model.started') return [{ kind: 'model', prompt: (e.data as { prompt?: string }).prompt ?? '' }];
      if (e.type === 'node.started' && e.nodeId === 'act') return [{ kind: 'charge' }];
      return [];
    });
  }

  const crashPoints = [1, 2, 3, 4, 5].flatMap((crashAt) => [true, false].map((stored) => ({ crashAt, stored })));

  it.each(crashPoints)(
    'crash at message $crashAt of the run (stored: $stored): no acknowledged event lost, no completed effect repeated',
    async ({ crashAt, stored }) => {
      const runId = `run-crash-${++runs}`;
      await queue(runId);
      const before: Effect[] = [];
      const dying = dyingBus(bus, crashAt, stored);
      const shutdown = new AbortController();
      const first = executeRunCommand(
        testExecutorDeps(dying.bus, { ...worldFor(before), busRetryMs: 60_000 }),
        runId,
        parent,
        shutdown.signal,
      );
      // The process is gone the moment its connection is: it neither writes nor acts any more.
      const ended = await Promise.race([first.then(() => 'finished' as const), dying.dead.then(() => 'died' as const)]);
      shutdown.abort();
      await first.catch(() => undefined);
      const atCrash = (await readRunLog(bus, runId)).events;
      if (ended === 'finished') expect(atCrash.at(-1)).toMatchObject({ type: 'run.completed' });

      // Every effect made before the crash was in the log, durably, before it was made.
      expect(startedIn(atCrash)).toEqual(expect.arrayContaining(before));
      expect(before.length).toBeLessThanOrEqual(startedIn(atCrash).length);

      const after: Effect[] = [];
      await executeRunCommand(testExecutorDeps(bus, worldFor(after)), runId, { ...parent, attempt: 2 }, new AbortController().signal);
      const final = (await readRunLog(bus, runId)).events;

      // Nothing stored before the crash is lost or changed: the new runner continued that log.
      expect(final.slice(0, atCrash.length)).toEqual(atCrash);
      expect(final.map((e) => e.seq)).toEqual(final.map((_, i) => i + 1));
      expect(final.at(-1)).toMatchObject({ type: 'run.completed', data: { output: { finished: true } } });
      // An effect the log said completed at the crash is not made again; each effect completes once.
      for (const done of completedIn(atCrash)) expect(after).not.toContainEqual(done);
      expect(completedIn(final)).toEqual([
        { kind: 'model', prompt: 'first question' },
        { kind: 'charge' },
        { kind: 'model', prompt: 'second question' },
      ]);
    },
  );
});
