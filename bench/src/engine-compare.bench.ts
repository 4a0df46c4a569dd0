import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { EMPTY_LOG, RunLogWriter, type Bus } from '@spindle/bus';
import { createDatabase, dropSchema } from '@spindle/db';
import { executeRun, validateDefinition } from '@spindle/engine';
import { chainOfFunctions } from './gateway-client';
import { median } from './stats';
import { cpuBetween, readCpuByProcess } from './process-cpu';

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
): Promise<{ spindleMsPerStep: number; spindleEffectMsPerStep: number; langgraphMsPerStep: number }> {
  return {
    spindleMsPerStep: await spindleSteps(bus, runs, steps, true),
    spindleEffectMsPerStep: await spindleSteps(bus, runs, steps, false),
    langgraphMsPerStep: await langgraphSteps(databaseUrl, `${bus.names.namespace}_langgraph`, runs, steps),
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

async function langgraphSteps(databaseUrl: string, schema: string, runs: number, steps: number): Promise<number> {
  return withLangGraph(databaseUrl, schema, steps, async (invoke) => {
    const perStep: number[] = [];
    for (let r = 0; r < runs; r++) {
      const started = performance.now();
      await invoke(`t${r}`);
      perStep.push((performance.now() - started) / steps);
    }
    return median(perStep);
  });
}

/**
 * LangGraph.js nodes per second with `concurrency` invocations of the same 50-step graph at once
 * (Postgres checkpointer, one pool), all steps over the wall time; median of `rounds`.
 */
export async function langgraphConcurrentNodesPerSec(
  databaseUrl: string,
  schema: string,
  concurrency = 20,
  steps = 50,
  rounds = 3,
): Promise<{ nodesPerSec: number; cpuPerNodeUs: Array<[string, number]> }> {
  return withLangGraph(databaseUrl, schema, steps, async (invoke) => {
    const rates: number[] = [];
    const cpuBefore = readCpuByProcess();
    for (let r = 0; r < rounds; r++) {
      const started = performance.now();
      await Promise.all(Array.from({ length: concurrency }, (_, i) => invoke(`c${r}-${i}`)));
      rates.push((concurrency * steps) / ((performance.now() - started) / 1000));
    }
    const executed = rounds * concurrency * steps;
    const cpuPerNodeUs = cpuBetween(cpuBefore, readCpuByProcess()).map(([role, ms]): [string, number] => [role, (ms * 1000) / executed]);
    return { nodesPerSec: median(rates), cpuPerNodeUs };
  });
}

/** A compiled `steps`-step counting graph with a Postgres checkpointer in its own schema, dropped after. */
async function withLangGraph<T>(
  databaseUrl: string,
  schema: string,
  steps: number,
  use: (invoke: (thread: string) => Promise<void>) => Promise<T>,
): Promise<T> {
  const State = Annotation.Root({ count: Annotation<number>({ reducer: (_, next) => next, default: () => 0 }) });
  const ids = Array.from({ length: steps }, (_, i) => `step_${i + 1}`);
  let graph = new StateGraph(State) as unknown as StateGraph<typeof State.spec, unknown, unknown, string>;
  for (const id of ids) graph = graph.addNode(id, (s: { count: number }) => ({ count: s.count + 1 })) as typeof graph;
  graph.addEdge(START, ids[0] as never);
  ids.slice(1).forEach((id, i) => graph.addEdge(ids[i] as never, id as never));
  graph.addEdge(ids[steps - 1] as never, END);
  const checkpointer = PostgresSaver.fromConnString(databaseUrl, { schema });
  await checkpointer.setup();
  const app = graph.compile({ checkpointer });
  const invoke = async (thread: string) => {
    const result = (await app.invoke(
      { count: 0 },
      { configurable: { thread_id: `${thread}-${randomBytes(4).toString('hex')}` }, recursionLimit: steps + 10 },
    )) as { count: number };
    if (result.count !== steps) throw new Error(`LangGraph benchmark ran ${result.count} steps`);
  };
  try {
    return await use(invoke);
  } finally {
    await checkpointer.end();
    const db = createDatabase({ url: databaseUrl, schema: 'public', maxConnections: 1 });
    await dropSchema(db, schema);
    await db.destroy();
  }
}
