import { mkdirSync, writeFileSync } from 'node:fs';
import { startStack } from '@spindle/testing';
import { GatewayClient } from './gateway-client';
import { measureLogThroughput } from './log-throughput.bench';
import { measureSseFanout } from './sse-fanout.bench';
import { compareWithLangGraph } from './engine-compare.bench';
import { measureConcurrentPatternOverhead, measureNodeOverhead, measureStartLatency } from './start-latency.bench';
import { testEnv } from '@spindle/testing';
import { fmt } from './stats';
import { measureResume } from './durable.bench';
import { measureAuthOverhead } from './auth.bench';

/** `npm run bench`: one run of every figure, on this machine, against real NATS and Postgres. */
async function main() {
  const stack = await startStack({ namespacePrefix: 'b', logLevel: 'warn' });
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
    console.log('bench: log throughput, 200 runs × 50 nodes…');
    const throughput = await measureLogThroughput(stack.bus, client);
    console.log('bench: SSE fan-out to 1,000 clients…');
    const fanout = await measureSseFanout(client);
    console.log('bench: authentication per request…');
    const auth = await measureAuthOverhead(stack);

    const rows: Array<[string, string]> = [
      ['run log events/s (runner → JetStream → recorder), 200 runs × 50 nodes', fmt(throughput.spindleEventsPerSec, 0)],
      [`raw JetStream publish+consume events/s (${throughput.eventBytes} B)`, fmt(throughput.rawEventsPerSec, 0)],
      ['ratio spindle / raw', fmt(throughput.spindleEventsPerSec / throughput.rawEventsPerSec, 2)],
      [
        `SSE publish→client p50 / p99 ms, ${fanout.clients} clients, ${fanout.events} events`,
        `${fmt(fanout.spindle.p50)} / ${fmt(fanout.spindle.p99)}`,
      ],
      ['bare SSE fan-out p50 / p99 ms (same events)', `${fmt(fanout.bare.p50)} / ${fmt(fanout.bare.p99)}`],
      ['run start latency POST → run.started p50 / p99 ms', `${fmt(start.p50)} / ${fmt(start.p99)}`],
      ['orchestration overhead per node, median ms (50-node chain)', fmt(overhead.medianMsPerNode, 2)],
      ['overhead per node, 3-agent concurrent pattern, median ms', fmt(panel.medianMsPerNode, 2)],
      ['answer POST → run.resumed p50 / p99 ms', `${fmt(resume.answerToResumed.p50)} / ${fmt(resume.answerToResumed.p99)}`],
      ['replay of 50 recorded nodes on resume, median ms', fmt(resume.replayMsPer50Nodes, 1)],
      ['engine per step, in process, run log on JetStream, median ms', fmt(versus.spindleMsPerStep, 3)],
      ['LangGraph.js per step, in process, Postgres checkpointer, median ms', fmt(versus.langgraphMsPerStep, 3)],
      ['ratio engine / LangGraph.js', fmt(versus.spindleMsPerStep / versus.langgraphMsPerStep, 2)],
      ['GET /v1/workflows p50 ms, API key vs authentication off', `${fmt(auth.withAuthMsP50, 3)} / ${fmt(auth.withoutAuthMsP50, 3)}`],
      ['authentication per request, p50 difference ms', fmt(auth.overheadMsP50, 3)],
      ['API key check in process (cached key), median µs', fmt(auth.keyCheckUs, 1)],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    console.log(`\n${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}`);
    mkdirSync('bench-results', { recursive: true });
    writeFileSync(
      `bench-results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
      JSON.stringify({ throughput, fanout, start, overhead, panel, resume, versus, auth }, null, 2),
    );
  } finally {
    await stack.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
