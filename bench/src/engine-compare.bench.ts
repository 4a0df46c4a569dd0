import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { EMPTY_LOG, RunLogWriter, type Bus } from '@spindle/bus';
import { createDatabase, dropSchema } from '@spindle/db';
import { executeRun, validateDefinition } from '@spindle/engine';
import { chainOfFunctions } from './gateway-client';
import { median } from './stats';
import { concurrentRounds, sequentialMsPerStep, type ConcurrentFigures } from './chain-baseline';
import { createScratchDatabase, databaseUrlFor, dropScratchDatabase } from './pg-databases';

/** LangGraph's `durability`: when a step's checkpoint is written (`'async'`, the default: while the next step runs). */
export type LangGraphDurability = 'exit' | 'async' | 'sync';

/**
 * Per-step overhead of the engine against LangGraph.js on the same 50-step graph of no-op steps,
 * in this process, each with its durable persistence on: our run log on JetStream (every step's
 * start, end and checkpoint appended; the run reports its outcome only once all of it is
 * acknowledged) and LangGraph's Postgres checkpointer. Pure steps never wait for the log; steps
 * that may act on the world (a function not declared pure) wait for it before they run.
 */
export async function compareWithLangGraph(
  bus: Bus,
  databaseUrl: string,
  runs = 10,
  steps = 50,
): Promise<{ spindleMsPerStep: number; spindleEffectMsPerStep: number; langgraphMsPerStep: number; langgraphSyncMsPerStep: number }> {
  return {
    spindleMsPerStep: await spindleSteps(bus, runs, steps, true),
    spindleEffectMsPerStep: await spindleSteps(bus, runs, steps, false),
    langgraphMsPerStep: await langgraphSteps(databaseUrl, `${bus.names.namespace}_langgraph`, runs, steps),
    // Each checkpoint written before the next step starts: like for like with a durable step.
    langgraphSyncMsPerStep: await langgraphSteps(databaseUrl, `${bus.names.namespace}_langgraph_sync`, runs, steps, 'sync'),
  };
}

async function spindleSteps(bus: Bus, runs: number, steps: number, pure: boolean): Promise<number> {
  const definition = validateDefinition(chainOfFunctions(steps));
  const perStep: number[] = [];
  for (let r = 0; r < runs; r++) {
    const runId = `cmp${randomBytes(6).toString('hex')}`;
    const log = new RunLogWriter(bus, runId, EMPTY_LOG);
    const started = performance.now();
    const outcome = await executeRun(
      { definition, state: {}, attempt: 1, worker: 'bench' },
      {
        runId,
        rootSpanId: 'root',
        log,
        model: { generate: () => Promise.reject(new Error('no model in this benchmark')) },
        functions: { get: () => () => ({}), isPure: () => pure },
        tools: { specs: () => [], call: () => Promise.reject(new Error('no tools in this benchmark')) },
        tokens: { push: () => undefined, flush: () => undefined },
        clock: { now: () => new Date() },
        ids: {
          spanId: () => randomBytes(8).toString('hex'),
          correlationId: () => randomBytes(6).toString('hex'),
          requestId: () => randomBytes(8).toString('hex'),
        },
        signal: new AbortController().signal,
        maxSteps: 1_000,
        reportRedacted: () => undefined,
      },
    );
    if (outcome.status !== 'completed') throw new Error(`engine benchmark run failed: ${JSON.stringify(outcome)}`);
    perStep.push((performance.now() - started) / steps);
  }
  return median(perStep);
}

async function langgraphSteps(
  databaseUrl: string,
  schema: string,
  runs: number,
  steps: number,
  durability?: LangGraphDurability,
): Promise<number> {
  return withLangGraph(databaseUrl, schema, steps, (invoke) => sequentialMsPerStep((r) => invoke(`t${r}`), steps, runs), { durability });
}

/**
 * LangGraph.js nodes per second with `concurrency` invocations of the same 50-step graph at once
 * (Postgres checkpointer, one pool), all steps over the wall time; median of `rounds`. With
 * `database`, the checkpointer gets a database of its own (dropped after) and what the rounds
 * wrote to it is counted per step.
 */
export async function langgraphConcurrentNodesPerSec(
  databaseUrl: string,
  schema: string,
  concurrency = 20,
  steps = 50,
  rounds = 3,
  options: { durability?: LangGraphDurability; database?: string } = {},
): Promise<ConcurrentFigures> {
  const { database } = options;
  return withLangGraph(
    databaseUrl,
    schema,
    steps,
    (invoke) =>
      concurrentRounds((r, i) => invoke(`c${r}-${i}`), {
        steps,
        concurrency,
        rounds,
        ...(database ? { writes: { url: databaseUrl, database } } : {}),
      }),
    options,
  );
}

/**
 * A compiled `steps`-step counting graph with a Postgres checkpointer in its own schema, dropped
 * after (or in a database of its own, dropped after), invoked with `durability` when given.
 */
async function withLangGraph<T>(
  databaseUrl: string,
  schema: string,
  steps: number,
  use: (invoke: (thread: string) => Promise<void>) => Promise<T>,
  options: { durability?: LangGraphDurability; database?: string } = {},
): Promise<T> {
  const { durability, database } = options;
  const State = Annotation.Root({ count: Annotation<number>({ reducer: (_, next) => next, default: () => 0 }) });
  const ids = Array.from({ length: steps }, (_, i) => `step_${i + 1}`);
  let graph = new StateGraph(State) as unknown as StateGraph<typeof State.spec, unknown, unknown, string>;
  for (const id of ids) graph = graph.addNode(id, (s: { count: number }) => ({ count: s.count + 1 })) as typeof graph;
  graph.addEdge(START, ids[0] as never);
  ids.slice(1).forEach((id, i) => graph.addEdge(ids[i] as never, id as never));
  graph.addEdge(ids[steps - 1] as never, END);
  if (database) await createScratchDatabase(databaseUrl, database);
  const checkpointer = PostgresSaver.fromConnString(database ? databaseUrlFor(databaseUrl, database) : databaseUrl, { schema });
  try {
    await checkpointer.setup();
    const app = graph.compile({ checkpointer });
    const invoke = async (thread: string) => {
      const result = (await app.invoke(
        { count: 0 },
        {
          configurable: { thread_id: `${thread}-${randomBytes(4).toString('hex')}` },
          recursionLimit: steps + 10,
          ...(durability ? { durability } : {}),
        },
      )) as { count: number };
      if (result.count !== steps) throw new Error(`LangGraph benchmark ran ${result.count} steps`);
    };
    return await use(invoke);
  } finally {
    await checkpointer.end();
    if (database) await dropScratchDatabase(databaseUrl, database);
    else {
      const db = createDatabase({ url: databaseUrl, schema: 'public', maxConnections: 1 });
      await dropSchema(db, schema);
      await db.destroy();
    }
  }
}
