import { chainOfFunctions, type GatewayClient } from './gateway-client';
import { median, percentile } from './stats';

/** POST → `run.started` of a one-node run, measured one run at a time. */
export async function measureStartLatency(client: GatewayClient, samples = 40): Promise<{ p50: number; p99: number }> {
  await client.putWorkflow('bench-one', chainOfFunctions(1));
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const posted = Date.now();
    const events = await client.waitTerminal(await client.startRun('bench-one'));
    const started = events.find((e) => e.type === 'run.started');
    if (started) latencies.push(Date.parse(started.at) - posted);
  }
  return { p50: median(latencies), p99: percentile(latencies, 99) };
}

/**
 * Per-node overhead of a 3-agent concurrent pattern (fork, three offline agents, join) through
 * the whole stack: run duration divided by the nodes it executed, one run at a time.
 */
export async function measureConcurrentPatternOverhead(client: GatewayClient, runs = 15): Promise<{ medianMsPerNode: number }> {
  const agent = (name: string) => ({ name, model: 'offline:echo' });
  await client.putWorkflow('bench-panel', { kind: 'concurrent', agents: [agent('a'), agent('b'), agent('c')] });
  const perNode: number[] = [];
  for (let i = 0; i < runs; i++) {
    const events = await client.waitTerminal(await client.startRun('bench-panel', { input: 'x' }));
    const started = events.find((e) => e.type === 'run.started');
    const nodes = events.filter((e) => e.type === 'node.started').length;
    const ended = events.at(-1);
    if (started && ended && nodes > 0) perNode.push((Date.parse(ended.at) - Date.parse(started.at)) / nodes);
  }
  return { medianMsPerNode: median(perNode) };
}

/** Per-node orchestration overhead: a 50-node chain of no-op functions, one run at a time. */
export async function measureNodeOverhead(client: GatewayClient, runs = 15, nodes = 50): Promise<{ medianMsPerNode: number }> {
  await client.putWorkflow(`bench-chain-${nodes}`, chainOfFunctions(nodes));
  const perNode: number[] = [];
  for (let i = 0; i < runs; i++) {
    const events = await client.waitTerminal(await client.startRun(`bench-chain-${nodes}`));
    const started = events.find((e) => e.type === 'run.started');
    const ended = events.at(-1);
    if (started && ended) perNode.push((Date.parse(ended.at) - Date.parse(started.at)) / nodes);
  }
  return { medianMsPerNode: median(perNode) };
}
