import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { startStack, readsControlPlaneSettings } from '@spindle/testing';
import { GatewayClient } from './gateway-client';
import { measureLogThroughput } from './log-throughput.bench';
import { measureSseFanout } from './sse-fanout.bench';
import { compareWithLangGraph, langgraphConcurrentNodesPerSec } from './engine-compare.bench';
import { measureConcurrentChains, measureProjectionLag, measureThousandRuns, type ConcurrentChains } from './durable-path.bench';
import { measureConcurrentPatternOverhead, measureNodeOverhead, measureStartLatency } from './start-latency.bench';
import { testEnv } from '@spindle/testing';
import { fmt, median } from './stats';
import { measureResume } from './durable.bench';
import { measureAuthOverhead } from './auth.bench';
import { measureMaskingCost } from './masking.bench';
import { measurePromptAssembly } from './prompt-assembly.bench';
import { measureRunSearch } from './run-search.bench';
import { measureConsoleScrub } from './console-scrub.bench';
import { measureKnowledge } from './knowledge.bench';

/** `npm run bench`: one run of every figure, on this machine, against real NATS and Postgres. */
async function main() {
  // One tenant starts and holds a thousand runs at once in the last figure: its quotas allow it.
  const stack = await startStack({
    namespacePrefix: 'b',
    logLevel: 'warn',
    serviceEnv: (name): Record<string, string> =>
      readsControlPlaneSettings(name) ? { SPINDLE_TENANT_MAX_RUNNING: '5000', SPINDLE_TENANT_STARTS_PER_MINUTE: '100000' } : {},
  });
  const client = new GatewayClient(stack.gatewayUrl, stack.auth);
  try {
    console.log('bench: per-node overhead and start latency (one run at a time)…');
    const overhead = await measureNodeOverhead(client);
    const start = await measureStartLatency(client);
    const panel = await measureConcurrentPatternOverhead(client);
    console.log('bench: answer → resumed, replay of 50 recorded nodes…');
    const resume = await measureResume(client);
    console.log('bench: engine vs LangGraph.js, 50 steps, durable persistence on…');
    const versus = await compareWithLangGraph(stack.bus, testEnv().databaseUrl);
    console.log('bench: 20 concurrent 50-node runs, through the stack and LangGraph.js…');
    const concurrent = {
      spindle: await measureConcurrentChains(client, stack),
      langgraph: await langgraphConcurrentNodesPerSec(testEnv().databaseUrl, `${stack.namespace}_langgraph_c`),
    };
    console.log('bench: projection lag at 2,000 events/s, three rounds…');
    // One round swings by a factor of two on a 2-core machine (the first one runs cold): median of three, as the issue asks.
    const lags = [
      await measureProjectionLag(client, stack),
      await measureProjectionLag(client, stack),
      await measureProjectionLag(client, stack),
    ];
    const lag = {
      eventsPerSec: median(lags.map((l) => l.eventsPerSec)),
      p50: median(lags.map((l) => l.p50)),
      p99: median(lags.map((l) => l.p99)),
      rounds: lags,
    };
    console.log('bench: log throughput, 200 runs × 50 nodes…');
    const throughput = await measureLogThroughput(stack.bus, client);
    console.log('bench: SSE fan-out to 1,000 clients…');
    // The noisiest figure on a 2-core machine (the clients share it): median of three rounds, each with its own baseline.
    const fanouts = [await measureSseFanout(client), await measureSseFanout(client), await measureSseFanout(client)];
    const fanout = {
      clients: fanouts[0]!.clients,
      events: fanouts[0]!.events,
      spindle: { p50: median(fanouts.map((f) => f.spindle.p50)), p99: median(fanouts.map((f) => f.spindle.p99)) },
      bare: { p50: median(fanouts.map((f) => f.bare.p50)), p99: median(fanouts.map((f) => f.bare.p99)) },
      p99Ratio: median(fanouts.map((f) => f.spindle.p99 / f.bare.p99)),
    };
    console.log('bench: authentication per request…');
    const auth = await measureAuthOverhead(stack);
    console.log('bench: secret masking per event…');
    const masking = measureMaskingCost();
    console.log('bench: prompt assembly under a context budget, per model call…');
    const assembly = measurePromptAssembly();
    console.log('bench: the runs list searched with 100,000 runs in the trace projection…');
    const search = await measureRunSearch(client, stack);
    console.log("bench: the console's replay scrubber on a run of 10,000 events and more, in Chromium…");
    const scrub = await measureConsoleScrub(client, stack);
    console.log('bench: knowledge bases: ingestion, and search at 10,000 and 100,000 chunks (exact on Postgres, HNSW on PGlite)…');
    const knowledge = await measureKnowledge(testEnv().databaseUrl, stack.namespace);
    console.log('bench: 1,000 runs held by one runner, half waiting on a person…');
    const held = await measureThousandRuns(client, stack);

    const rows: Array<[string, string]> = [
      ['run log events/s (runner → JetStream → recorder), 200 runs × 50 nodes', fmt(throughput.spindleEventsPerSec, 0)],
      [`raw JetStream publish+consume events/s (${throughput.eventBytes} B)`, fmt(throughput.rawEventsPerSec, 0)],
      ['ratio spindle / raw', fmt(throughput.spindleEventsPerSec / throughput.rawEventsPerSec, 2)],
      [
        `SSE publish→client p50 / p99 ms, ${fanout.clients} clients, ${fanout.events} events, median of 3`,
        `${fmt(fanout.spindle.p50)} / ${fmt(fanout.spindle.p99)}`,
      ],
      ['bare SSE fan-out p50 / p99 ms (same events)', `${fmt(fanout.bare.p50)} / ${fmt(fanout.bare.p99)}`],
      ['SSE p99 ratio spindle / bare, median of 3 rounds', fmt(fanout.p99Ratio, 2)],
      ['run start latency POST → run.started p50 / p99 ms', `${fmt(start.p50)} / ${fmt(start.p99)}`],
      ['orchestration overhead per node, median ms (50-node chain of pure functions)', fmt(overhead.medianMsPerNode, 2)],
      ['overhead per node, 3-agent concurrent pattern, median ms', fmt(panel.medianMsPerNode, 2)],
      ['answer POST → run.resumed p50 / p99 ms', `${fmt(resume.answerToResumed.p50)} / ${fmt(resume.answerToResumed.p99)}`],
      ['replay of 50 recorded nodes on resume, median ms', fmt(resume.replayMsPer50Nodes, 1)],
      ['engine per step, in process, run log on JetStream, median ms (pure steps)', fmt(versus.spindleMsPerStep, 3)],
      ['engine per step, each step waiting for the log first (steps with effects), median ms', fmt(versus.spindleEffectMsPerStep, 3)],
      ['LangGraph.js per step, in process, Postgres checkpointer, median ms', fmt(versus.langgraphMsPerStep, 3)],
      [
        'ratio engine / LangGraph.js (pure steps; steps with effects)',
        [versus.spindleMsPerStep, versus.spindleEffectMsPerStep].map((ms) => fmt(ms / versus.langgraphMsPerStep, 2)).join('; '),
      ],
      ['nodes/s, 20 concurrent 50-node runs through the stack, median of 3', fmt(concurrent.spindle.nodesPerSec, 0)],
      ['nodes/s, LangGraph.js + PostgresSaver, 20 concurrent invocations, median of 3', fmt(concurrent.langgraph.nodesPerSec, 0)],
      ['ratio stack / LangGraph.js nodes/s', fmt(concurrent.spindle.nodesPerSec / concurrent.langgraph.nodesPerSec, 1)],
      ...cpuRows('stack', concurrent.spindle.cpuPerNodeUs),
      ...roundTripRows(concurrent.spindle.perRun),
      ...cpuRows('LangGraph.js', concurrent.langgraph.cpuPerNodeUs),
      [
        `projection lag append → trace row p50 / p99 ms, at ${fmt(lag.eventsPerSec, 0)} events/s, median of 3 rounds`,
        `${fmt(lag.p50)} / ${fmt(lag.p99)}`,
      ],
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
      ...search.searches.map((q): [string, string] => {
        const matched = `${fmt(q.matched, 0)} ${q.name.startsWith('overview') ? 'counted' : 'shown'}`;
        return [
          `${fmt(search.runs, 0)} runs in the projection: ${q.name} (${matched}) p50 / p95 ms`,
          `${fmt(q.medianMs)} / ${fmt(q.p95Ms)}`,
        ];
      }),
      [
        `console replay scrub, slider → painted, ${fmt(scrub.events, 0)} events, ${scrub.scrubs} moves: median / max ms`,
        `${fmt(scrub.medianMs)} / ${fmt(scrub.maxMs)}`,
      ],
      [
        `knowledge ingestion (chunk, offline embed, one transaction), ${fmt(knowledge.ingestion.chunks, 0)} chunks: chunks/s`,
        fmt(knowledge.ingestion.chunksPerSec, 0),
      ],
      ...knowledge.searches.map((k): [string, string] => [
        `knowledge search, ${k.store}, ${fmt(k.chunks, 0)} chunks of 256 dims, top 5, query embedding included: p50 / p99 ms`,
        `${fmt(k.p50Ms)} / ${fmt(k.p99Ms)}`,
      ]),
      ['GET /v1/workflows p50 ms, API key vs authentication off', `${fmt(auth.withAuthMsP50, 3)} / ${fmt(auth.withoutAuthMsP50, 3)}`],
      ['authentication per request, p50 difference ms', fmt(auth.overheadMsP50, 3)],
      ['API key check in process (cached key), median µs', fmt(auth.keyCheckUs, 1)],
      ...masking.map((m): [string, string] => [
        `event of ${m.eventBytes} B: serialize / mask / mask with 2 RE2 patterns / mask with a secret in it, median µs`,
        [m.serializeUs, m.maskUs, m.maskWithPatternsUs, m.maskHitUs].map((us) => fmt(us, 1)).join(' / '),
      ]),
      ...masking.map((m): [string, string] => [
        `  ratio mask / serialize, ${m.eventBytes} B (no secret; with patterns)`,
        `${fmt(m.maskUs / m.serializeUs, 2)}; ${fmt(m.maskWithPatternsUs / m.serializeUs, 2)}`,
      ]),
      ...assembly.map((a): [string, string] => [
        `prompt assembly, ${a.case} (${fmt(a.tokensBefore, 0)} → ${fmt(a.tokensAfter, 0)} tokens): cold / warm median ms per call`,
        `${fmt(a.coldMs, 2)} / ${fmt(a.warmMs, 2)}`,
      ]),
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    console.log(`\n${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}`);
    mkdirSync('bench-results', { recursive: true });
    writeFileSync(
      `bench-results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
      JSON.stringify(
        {
          throughput,
          fanout,
          start,
          overhead,
          panel,
          resume,
          versus,
          concurrent,
          lag,
          held,
          search,
          scrub,
          auth,
          masking,
          assembly,
          knowledge,
        },
        null,
        2,
      ),
    );
  } finally {
    await stack.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

/**
 * CPU per node over every process on the machine, and the nodes per second this machine's cores
 * could reach at that cost if nothing else ran: the ceiling the concurrent figure works under.
 */
function cpuRows(what: string, perNodeUs: Array<[string, number]>): Array<[string, string]> {
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

/** What a run of the concurrent figure cost in round trips, as the servers counted them. */
function roundTripRows(perRun: ConcurrentChains['perRun']): Array<[string, string]> {
  if (!perRun) return [];
  return [
    [
      'per 50-node run, 20 concurrent: Postgres transactions / JetStream API requests / log messages',
      [perRun.pgTransactions, perRun.jetStreamApiRequests, perRun.logMessages].map((n) => fmt(n, 1)).join(' / '),
    ],
  ];
}
