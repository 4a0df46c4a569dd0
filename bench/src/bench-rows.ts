import { availableParallelism } from 'node:os';
import type { BenchRow } from './bench-report';
import type { compareWithLangGraph, langgraphConcurrentNodesPerSec } from './engine-compare.bench';
import type { ConcurrentChains, measureThousandRuns } from './durable-path.bench';
import type { measureLogThroughput } from './log-throughput.bench';
import type { measureAuthOverhead } from './auth.bench';
import type { measureMaskingCost } from './masking.bench';
import type { measureKnowledge } from './knowledge.bench';
import type { measureEvaluatorOverhead, measureExperimentThroughput, measureReplay } from './evals.bench';
import type { DbosFigures } from './dbos.bench';
import type { ChainFigures, ConcurrentFigures } from './chain-baseline';
import type { PgWrites } from './pg-writes';
import { fmt } from './stats';

// The rows each figure of `npm run bench` prints: what was measured, and how much.

export function versusRows(versus: Awaited<ReturnType<typeof compareWithLangGraph>>): BenchRow[] {
  return [
    ['engine per step, in process, run log on JetStream, median ms (pure steps)', fmt(versus.spindleMsPerStep, 3)],
    ['engine per step, each step waiting for the log first (steps with effects), median ms', fmt(versus.spindleEffectMsPerStep, 3)],
    ['LangGraph.js per step, in process, Postgres checkpointer, median ms', fmt(versus.langgraphMsPerStep, 3)],
    [
      'ratio engine / LangGraph.js (pure steps; steps with effects)',
      [versus.spindleMsPerStep, versus.spindleEffectMsPerStep].map((ms) => fmt(ms / versus.langgraphMsPerStep, 2)).join('; '),
    ],
    [
      "LangGraph.js per step, durability 'sync' (each checkpoint written before the next step), median ms",
      fmt(versus.langgraphSyncMsPerStep, 3),
    ],
    [
      "ratio engine / LangGraph.js durability 'sync' (pure steps; steps with effects)",
      [versus.spindleMsPerStep, versus.spindleEffectMsPerStep].map((ms) => fmt(ms / versus.langgraphSyncMsPerStep, 2)).join('; '),
    ],
  ];
}

export function concurrentRows(concurrent: {
  spindle: ConcurrentChains;
  langgraph: Awaited<ReturnType<typeof langgraphConcurrentNodesPerSec>>;
  /** The same invocations with `durability: 'sync'`. */
  langgraphSync?: ConcurrentFigures;
}): BenchRow[] {
  const sync = concurrent.langgraphSync;
  return [
    ['nodes/s, 20 concurrent 50-node runs through the stack, median of 3', fmt(concurrent.spindle.nodesPerSec, 0)],
    ['nodes/s, LangGraph.js + PostgresSaver, 20 concurrent invocations, median of 3', fmt(concurrent.langgraph.nodesPerSec, 0)],
    ['ratio stack / LangGraph.js nodes/s', fmt(concurrent.spindle.nodesPerSec / concurrent.langgraph.nodesPerSec, 1)],
    ...(sync
      ? [
          [
            "nodes/s, LangGraph.js + PostgresSaver, durability 'sync', 20 concurrent invocations, median of 3",
            fmt(sync.nodesPerSec, 0),
          ] satisfies BenchRow,
          [
            "ratio stack / LangGraph.js durability 'sync' nodes/s",
            fmt(concurrent.spindle.nodesPerSec / sync.nodesPerSec, 1),
          ] satisfies BenchRow,
        ]
      : []),
    ...cpuRows('stack', concurrent.spindle.cpuPerNodeUs),
    ...roundTripRows(concurrent.spindle.perRun),
    ...persistedRows('stack', concurrent.spindle.persistedPerNode),
    ...cpuRows('LangGraph.js', concurrent.langgraph.cpuPerNodeUs),
    ...inProcessCpuRows('LangGraph.js', concurrent.langgraph.cpuPerNodeUs),
    ...persistedRows('LangGraph.js', concurrent.langgraph.persistedPerStep),
    ...(sync
      ? [
          ...cpuRows("LangGraph.js 'sync'", sync.cpuPerNodeUs),
          ...inProcessCpuRows("LangGraph.js 'sync'", sync.cpuPerNodeUs),
          ...persistedRows("LangGraph.js 'sync'", sync.persistedPerStep),
        ]
      : []),
  ];
}

export function throughputRows(throughput: Awaited<ReturnType<typeof measureLogThroughput>>): BenchRow[] {
  return [
    ['run log events/s (runner → JetStream → recorder), 200 runs × 50 nodes', fmt(throughput.spindleEventsPerSec, 0)],
    [`raw JetStream publish+consume events/s (${throughput.eventBytes} B)`, fmt(throughput.rawEventsPerSec, 0)],
    ['ratio spindle / raw', fmt(throughput.spindleEventsPerSec / throughput.rawEventsPerSec, 2)],
  ];
}

export function fanoutRows(fanout: {
  clients: number;
  events: number;
  spindle: { p50: number; p99: number };
  bare: { p50: number; p99: number };
  p99Ratio: number;
}): BenchRow[] {
  return [
    [
      `SSE publish→client p50 / p99 ms, ${fanout.clients} clients, ${fanout.events} events, median of 3`,
      `${fmt(fanout.spindle.p50)} / ${fmt(fanout.spindle.p99)}`,
    ],
    ['bare SSE fan-out p50 / p99 ms (same events)', `${fmt(fanout.bare.p50)} / ${fmt(fanout.bare.p99)}`],
    ['SSE p99 ratio spindle / bare, median of 3 rounds', fmt(fanout.p99Ratio, 2)],
  ];
}

export function authRows(auth: Awaited<ReturnType<typeof measureAuthOverhead>>): BenchRow[] {
  return [
    ['GET /v1/workflows p50 ms, API key vs authentication off', `${fmt(auth.withAuthMsP50, 3)} / ${fmt(auth.withoutAuthMsP50, 3)}`],
    ['authentication per request, p50 difference ms', fmt(auth.overheadMsP50, 3)],
    ['API key check in process (cached key), median µs', fmt(auth.keyCheckUs, 1)],
  ];
}

export function maskingRows(masking: ReturnType<typeof measureMaskingCost>): BenchRow[] {
  return [
    ...masking.map((m): BenchRow => [
      `event of ${m.eventBytes} B: serialize / mask / mask with 2 RE2 patterns / mask with a secret in it, median µs`,
      [m.serializeUs, m.maskUs, m.maskWithPatternsUs, m.maskHitUs].map((us) => fmt(us, 1)).join(' / '),
    ]),
    ...masking.map((m): BenchRow => [
      `  ratio mask / serialize, ${m.eventBytes} B (no secret; with patterns)`,
      `${fmt(m.maskUs / m.serializeUs, 2)}; ${fmt(m.maskWithPatternsUs / m.serializeUs, 2)}`,
    ]),
  ];
}

export function knowledgeRows(knowledge: Awaited<ReturnType<typeof measureKnowledge>>): BenchRow[] {
  return [
    [
      `knowledge ingestion (chunk, offline embed, one transaction), ${fmt(knowledge.ingestion.chunks, 0)} chunks: chunks/s`,
      fmt(knowledge.ingestion.chunksPerSec, 0),
    ],
    ...knowledge.searches.map((k): BenchRow => [
      `knowledge search, ${k.store}, ${fmt(k.chunks, 0)} chunks of 256 dims, top 5, query embedding included: p50 / p99 ms`,
      `${fmt(k.p50Ms)} / ${fmt(k.p99Ms)}`,
    ]),
  ];
}

export function heldRows(held: Awaited<ReturnType<typeof measureThousandRuns>>): BenchRow[] {
  return [
    [
      `${held.runs} runs on one runner (${held.waitingOnPerson} waiting on a person): runner RSS before / peak MiB`,
      `${fmt(held.runnerRssBeforeMiB, 0)} / ${fmt(held.runnerRssPeakMiB, 0)}`,
    ],
    [
      '  RSS per held run KiB; node overhead after the model p50 / p99 ms; slowest finish ms',
      [
        fmt(held.rssPerHeldRunKiB, 0),
        `${fmt(held.nodeOverheadP50Ms, 2)} / ${fmt(held.nodeOverheadP99Ms, 2)}`,
        fmt(held.slowestFinishMs, 0),
      ].join('; '),
    ],
  ];
}

/**
 * CPU per node over every process on the machine, and the nodes per second this machine's cores
 * could reach at that cost if nothing else ran: the ceiling the concurrent figure works under.
 */
function cpuRows(what: string, perNodeUs: Array<[string, number]>): BenchRow[] {
  const total = perNodeUs.reduce((n, [, us]) => n + us, 0);
  if (total === 0) return [];
  const cores = availableParallelism();
  return [
    [
      `CPU per node, all processes, 20 concurrent runs, ${what}, µs (by process)`,
      `${fmt(total, 0)} (${perNodeUs.map(([role, us]) => `${role} ${fmt(us, 0)}`).join(', ')})`,
    ],
    [`nodes/s ${cores} cores allow at that CPU per node, ${what}`, fmt((cores * 1e6) / total, 0)],
  ];
}

/**
 * CPU per step of a framework that runs in this process: this process and Postgres's backends,
 * without the rest of the machine (on a shared one, other work lands in the all-process sum).
 */
function inProcessCpuRows(what: string, perNodeUs: Array<[string, number]>): BenchRow[] {
  const us = (role: string) => perNodeUs.find(([r]) => r === role)?.[1] ?? 0;
  if (perNodeUs.length === 0) return [];
  return [
    [
      `CPU per step, 20 concurrent runs, ${what}: this process + Postgres backends, µs`,
      `${fmt(us('bench') + us('postgres'), 0)} (this process ${fmt(us('bench'), 0)}, postgres ${fmt(us('postgres'), 0)})`,
    ],
  ];
}

/**
 * What each step of the concurrent runs made Postgres do: statements executed (BEGIN and COMMIT
 * among them), rows they wrote, WAL they generated and the growth of the data on disk.
 */
export function persistedRows(what: string, perStep: PgWrites | undefined): BenchRow[] {
  if (!perStep) return [];
  const { statements, rowsWritten, walBytes, storedBytes } = perStep;
  return [
    [
      `Postgres per step, 20 concurrent runs, ${what}: statements / rows written / WAL bytes / bytes stored`,
      `${fmt(statements, 2)} / ${fmt(rowsWritten, 2)} / ${fmt(walBytes, 0)} / ${fmt(storedBytes, 0)}`,
    ],
  ];
}

/** What a run of the concurrent figure cost in round trips, as the servers counted them. */
function roundTripRows(perRun: ConcurrentChains['perRun']): BenchRow[] {
  if (!perRun) return [];
  return [
    [
      'per 50-node run, 20 concurrent: Postgres transactions / JetStream API requests / log messages',
      [perRun.pgTransactions, perRun.jetStreamApiRequests, perRun.logMessages].map((n) => fmt(n, 1)).join(' / '),
    ],
  ];
}

export function evalRows(
  overhead: Awaited<ReturnType<typeof measureEvaluatorOverhead>>,
  experiment: Awaited<ReturnType<typeof measureExperimentThroughput>>,
): BenchRow[] {
  return [
    [
      'wall of a 10-node run judged by 3 built-in evaluators / without, median ms',
      `${fmt(overhead.judgedWallMs, 1)} / ${fmt(overhead.unjudgedWallMs, 1)}`,
    ],
    ['ratio judged / unjudged run wall (evaluators run after the end)', fmt(overhead.judgedWallMs / overhead.unjudgedWallMs, 2)],
    ['its scores stored after run.completed, median ms', fmt(overhead.scoredAfterMs, 0)],
    [`experiment over ${experiment.items} items (concurrency 20, 3 evaluators), items/s`, fmt(experiment.experimentItemsPerSec, 1)],
    ['the same runs started by a client 20 at a time, runs/s', fmt(experiment.directRunsPerSec, 1)],
    ['ratio experiment / direct', fmt(experiment.experimentItemsPerSec / experiment.directRunsPerSec, 2)],
    ['items completed', String(experiment.completed)],
  ];
}

export function replayRows(replay: Awaited<ReturnType<typeof measureReplay>>): BenchRow[] {
  const { same, changed } = replay;
  return [
    [
      `re-running a recorded run (3 model calls, provider ${replay.providerDelayMs} ms each) / replaying it, median wall ms`,
      `${fmt(replay.rerunWallMs, 1)} / ${fmt(same.wallMs, 1)}`,
    ],
    ['ratio replay / re-run wall', fmt(same.wallMs / replay.rerunWallMs, 3)],
    [`${replay.runs} runs replayed: POST to every report, per run ms`, fmt(same.endToEndPerRunMs, 1)],
    ['provider calls made by the replays (same version / changed prompt)', `${same.providerCalls} / ${changed.providerCalls}`],
    ['replay against a changed prompt, stopped at its first call: median wall ms', fmt(changed.wallMs, 1)],
    ['outcomes (same version / changed prompt)', `${JSON.stringify(same.outcomes)} / ${JSON.stringify(changed.outcomes)}`],
  ];
}

/** Spindle's figures of the same bench run, which the peers' rows are set against. */
export interface SpindleFigures {
  spindleMsPerStep?: number;
  /** Each step waiting for the log before it runs: what a durable step is in DBOS. */
  spindleEffectMsPerStep?: number;
  spindleNodesPerSec?: number;
  /** CPU per node of all the stack's processes, µs. */
  spindleCpuPerNodeUs?: number;
}

export function dbosRows(dbos: DbosFigures, same: SpindleFigures): BenchRow[] {
  return peerRows('DBOS', 'Postgres system database', dbos, same);
}

export function mastraRows(mastra: ChainFigures, same: SpindleFigures): BenchRow[] {
  return peerRows('Mastra', 'Postgres storage (PostgresStore)', mastra, same);
}

/** A peer framework's chain, sequentially and 20 at once, set against this run's own figures. */
function peerRows(peer: string, store: string, figures: ChainFigures, same: SpindleFigures): BenchRow[] {
  const peerCpu = figures.cpuPerNodeUs.reduce((sum, [, us]) => sum + us, 0);
  return [
    [`${peer} per step, in process, ${store}, sequential 50-step workflow, median ms`, fmt(figures.msPerStep, 3)],
    [
      `ratio engine / ${peer} per step (pure steps; steps with effects, each durable before it runs)`,
      `${ratio(same.spindleMsPerStep, figures.msPerStep)}; ${ratio(same.spindleEffectMsPerStep, figures.msPerStep)}`,
    ],
    [`steps/s, ${peer}, 20 concurrent 50-step workflows, median of 3`, fmt(figures.nodesPerSec, 0)],
    [
      `ratio stack / ${peer} nodes/s (the stack with its log, trace, checkpoints, requests and control plane on)`,
      ratio(same.spindleNodesPerSec, figures.nodesPerSec),
    ],
    ...cpuRows(peer, figures.cpuPerNodeUs),
    [`ratio stack / ${peer} CPU per node, all processes`, ratio(same.spindleCpuPerNodeUs, peerCpu)],
    ...inProcessCpuRows(peer, figures.cpuPerNodeUs),
    ...persistedRows(peer, figures.persistedPerStep),
  ];
}

/** One of this run's own figures over a peer's, or why there is none. */
export function ratio(ours: number | undefined, theirs: number): string {
  return ours === undefined ? 'not measured in this run' : fmt(ours / theirs, 2);
}
