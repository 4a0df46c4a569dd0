import { mkdirSync, writeFileSync } from 'node:fs';
import { chromiumMissing, readsControlPlaneSettings, startStack, testEnv } from '@spindle/testing';
import { GatewayClient } from './gateway-client';
import { measureLogThroughput } from './log-throughput.bench';
import { measureSseFanout } from './sse-fanout.bench';
import { compareWithLangGraph, langgraphConcurrentNodesPerSec } from './engine-compare.bench';
import { measureDbos } from './dbos.bench';
import { measureMastra } from './mastra.bench';
import type { SpindleFigures } from './bench-rows';
import { measureConcurrentChains, measureProjectionLag, measureThousandRuns } from './durable-path.bench';
import { measureConcurrentPatternOverhead, measureNodeOverhead, measureStartLatency } from './start-latency.bench';
import { fmt, median } from './stats';
import { BenchReport, onlySections, type BenchRow } from './bench-report';
import {
  authRows,
  concurrentRows,
  evalRows,
  dbosRows,
  mastraRows,
  replayRows,
  fanoutRows,
  heldRows,
  knowledgeRows,
  maskingRows,
  throughputRows,
  versusRows,
} from './bench-rows';
import { measureEvaluatorOverhead, measureExperimentThroughput, measureReplay } from './evals.bench';
import { measureResume } from './durable.bench';
import { measureAuthOverhead } from './auth.bench';
import { measureMaskingCost } from './masking.bench';
import { measurePromptAssembly } from './prompt-assembly.bench';
import { measureRunSearch } from './run-search.bench';
import { measureConsoleScrub } from './console-scrub.bench';
import { measureKnowledge } from './knowledge.bench';

/** `npm run bench`: one run of every figure, on this machine, against real NATS and Postgres; each printed as it is measured. */
async function main() {
  // One tenant starts and holds a thousand runs at once in the last figure: its quotas allow it.
  const stack = await startStack({
    namespacePrefix: 'b',
    logLevel: 'warn',
    serviceEnv: (name): Record<string, string> =>
      readsControlPlaneSettings(name) ? { SPINDLE_TENANT_MAX_RUNNING: '5000', SPINDLE_TENANT_STARTS_PER_MINUTE: '100000' } : {},
  });
  const client = new GatewayClient(stack.gatewayUrl, stack.auth);
  const report = new BenchReport(undefined, onlySections(process.argv));
  // This run's own figures, for the peers' same-run ratios (absent when their section was skipped).
  const same: SpindleFigures = {};
  try {
    await report.section('overhead', 'per-node overhead (one run at a time)', async () => {
      const overhead = await measureNodeOverhead(client);
      return {
        result: overhead,
        rows: [['orchestration overhead per node, median ms (50-node chain of pure functions)', fmt(overhead.medianMsPerNode, 2)]],
      };
    });
    await report.section('start', 'run start latency', async () => {
      const start = await measureStartLatency(client);
      return { result: start, rows: [['run start latency POST → run.started p50 / p99 ms', `${fmt(start.p50)} / ${fmt(start.p99)}`]] };
    });
    await report.section('panel', 'overhead per node of the concurrent pattern', async () => {
      const panel = await measureConcurrentPatternOverhead(client);
      return { result: panel, rows: [['overhead per node, 3-agent concurrent pattern, median ms', fmt(panel.medianMsPerNode, 2)]] };
    });
    await report.section('resume', 'answer → resumed, replay of 50 recorded nodes', async () => {
      const resume = await measureResume(client);
      return {
        result: resume,
        rows: [
          ['answer POST → run.resumed p50 / p99 ms', `${fmt(resume.answerToResumed.p50)} / ${fmt(resume.answerToResumed.p99)}`],
          ['replay of 50 recorded nodes on resume, median ms', fmt(resume.replayMsPer50Nodes, 1)],
        ],
      };
    });
    await report.section('versus', 'engine vs LangGraph.js, 50 steps, durable persistence on', async () => {
      const versus = await compareWithLangGraph(stack.bus, testEnv().databaseUrl);
      same.spindleMsPerStep = versus.spindleMsPerStep;
      same.spindleEffectMsPerStep = versus.spindleEffectMsPerStep;
      return { result: versus, rows: versusRows(versus) };
    });
    await report.section('concurrent', '20 concurrent 50-node runs, through the stack and LangGraph.js', async () => {
      // Each LangGraph.js checkpointer in a database of its own, so what it writes per step is counted apart.
      const langgraph = (durability?: 'sync') => {
        const database = `${stack.namespace}_langgraph_${durability === 'sync' ? 's' : 'c'}`;
        return langgraphConcurrentNodesPerSec(testEnv().databaseUrl, database, 20, 50, 3, { durability, database });
      };
      const concurrent = {
        spindle: await measureConcurrentChains(client, stack),
        langgraph: await langgraph(),
        langgraphSync: await langgraph('sync'),
      };
      same.spindleNodesPerSec = concurrent.spindle.nodesPerSec;
      same.spindleCpuPerNodeUs = concurrent.spindle.cpuPerNodeUs.reduce((sum, [, us]) => sum + us, 0);
      return { result: concurrent, rows: concurrentRows(concurrent) };
    });
    await report.section(
      'dbos',
      'DBOS Transact 5.3, the same 50-step chain sequentially and 20 at once (Postgres system database)',
      async () => {
        const dbos = await measureDbos(testEnv().databaseUrl, `${stack.namespace}_dbos`);
        return { result: dbos, rows: dbosRows(dbos, same) };
      },
    );
    await report.section(
      'mastra',
      'Mastra 0.24.9 workflows, the same 50-step chain sequentially and 20 at once (PostgresStore, @mastra/pg 0.17.10)',
      async () => {
        const mastra = await measureMastra(testEnv().databaseUrl, `${stack.namespace}_mastra`);
        return { result: mastra, rows: mastraRows(mastra, same) };
      },
    );
    await report.section('lag', 'projection lag at 2,000 events/s, three rounds', async () => {
      // One round swings by a factor of two on a 2-core machine (the first one runs cold): median of three.
      const rounds = [
        await measureProjectionLag(client, stack),
        await measureProjectionLag(client, stack),
        await measureProjectionLag(client, stack),
      ];
      const lag = {
        eventsPerSec: median(rounds.map((l) => l.eventsPerSec)),
        p50: median(rounds.map((l) => l.p50)),
        p99: median(rounds.map((l) => l.p99)),
        rounds,
      };
      const title = `projection lag append → trace row p50 / p99 ms, at ${fmt(lag.eventsPerSec, 0)} events/s, median of 3 rounds`;
      return { result: lag, rows: [[title, `${fmt(lag.p50)} / ${fmt(lag.p99)}`]] };
    });
    await report.section('throughput', 'log throughput, 200 runs × 50 nodes', async () => {
      const throughput = await measureLogThroughput(stack.bus, client);
      return { result: throughput, rows: throughputRows(throughput) };
    });
    await report.section('fanout', 'SSE fan-out to 1,000 clients, three rounds', async () => {
      // The noisiest figure on a 2-core machine (the clients share it): median of three rounds, each with its own baseline.
      const fanouts = [await measureSseFanout(client), await measureSseFanout(client), await measureSseFanout(client)];
      const fanout = {
        clients: fanouts[0]!.clients,
        events: fanouts[0]!.events,
        spindle: { p50: median(fanouts.map((f) => f.spindle.p50)), p99: median(fanouts.map((f) => f.spindle.p99)) },
        bare: { p50: median(fanouts.map((f) => f.bare.p50)), p99: median(fanouts.map((f) => f.bare.p99)) },
        p99Ratio: median(fanouts.map((f) => f.spindle.p99 / f.bare.p99)),
      };
      return { result: fanout, rows: fanoutRows(fanout) };
    });
    await report.section('auth', 'authentication per request', async () => {
      const auth = await measureAuthOverhead(stack);
      return { result: auth, rows: authRows(auth) };
    });
    await report.section('masking', 'secret masking per event', () => {
      const masking = measureMaskingCost();
      return { result: masking, rows: maskingRows(masking) };
    });
    await report.section('assembly', 'prompt assembly under a context budget, per model call', () => {
      const assembly = measurePromptAssembly();
      const rows = assembly.map((a): BenchRow => [
        `prompt assembly, ${a.case} (${fmt(a.tokensBefore, 0)} → ${fmt(a.tokensAfter, 0)} tokens): cold / warm median ms per call`,
        `${fmt(a.coldMs, 2)} / ${fmt(a.warmMs, 2)}`,
      ]);
      return { result: assembly, rows };
    });
    await report.section('search', 'the runs list searched with 100,000 runs in the trace projection', async () => {
      const search = await measureRunSearch(client, stack);
      const rows = search.searches.map((q): BenchRow => {
        const matched = `${fmt(q.matched, 0)} ${q.name.startsWith('overview') ? 'counted' : 'shown'}`;
        return [
          `${fmt(search.runs, 0)} runs in the projection: ${q.name} (${matched}) p50 / p95 ms`,
          `${fmt(q.medianMs)} / ${fmt(q.p95Ms)}`,
        ];
      });
      return { result: search, rows };
    });
    await report.section(
      'scrub',
      "the console's replay scrubber on a run of 10,000 events and more, in Chromium",
      async () => {
        const scrub = await measureConsoleScrub(client, stack);
        const title = `console replay scrub, slider → painted, ${fmt(scrub.events, 0)} events, ${scrub.scrubs} moves: median / max ms`;
        return { result: scrub, rows: [[title, `${fmt(scrub.medianMs)} / ${fmt(scrub.maxMs)}`]] };
      },
      chromiumMissing,
    );
    await report.section(
      'knowledge',
      'knowledge bases: ingestion, and search at 10,000 and 100,000 chunks (exact on Postgres, HNSW on PGlite)',
      async () => {
        const knowledge = await measureKnowledge(testEnv().databaseUrl, stack.namespace);
        return { result: knowledge, rows: knowledgeRows(knowledge) };
      },
    );
    await report.section('evals', 'evaluators per judged run, and an experiment over 1,000 items', async () => {
      const overhead = await measureEvaluatorOverhead(client);
      const experiment = await measureExperimentThroughput(client);
      return { result: { overhead, experiment }, rows: evalRows(overhead, experiment) };
    });
    await report.section('replay', 'replaying recorded runs through a version against re-running them', async () => {
      const replay = await measureReplay(client, stack);
      return { result: replay, rows: replayRows(replay) };
    });
    await report.section('held', '1,000 runs held by one runner, half waiting on a person', async () => {
      const held = await measureThousandRuns(client, stack);
      return { result: held, rows: heldRows(held) };
    });

    console.log(`\n${report.table()}`);
    mkdirSync('bench-results', { recursive: true });
    writeFileSync(`bench-results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`, JSON.stringify(report.results, null, 2));
    if (report.anyFailed) process.exitCode = 1;
  } finally {
    await stack.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
