import type { RunEvent } from '@spindle/contracts';
import { readSse } from '@spindle/testing';
import { chainOfFunctions, type GatewayClient } from './gateway-client';
import { median, percentile } from './stats';

/**
 * A person's answer → the run continuing: POST respond → `run.resumed` (answer appended, resume
 * command queued, runner re-reads and replays the log), and how long the replay of the steps
 * before the pause takes (`run.resumed` → the human node's `node.completed`), for a 50-node
 * chain ending in a human node. One run at a time.
 */
export async function measureResume(
  client: GatewayClient,
  samples = 25,
  before = 50,
): Promise<{ answerToResumed: { p50: number; p99: number }; replayMsPer50Nodes: number }> {
  const chain = chainOfFunctions(before) as { nodes: unknown[]; edges: Array<{ from: string; to: string }> };
  chain.nodes.push({ id: 'ask', type: 'human', prompt: 'go on?', form: 'boolean' });
  chain.edges.push({ from: `step_${before}`, to: 'ask' });
  await client.putWorkflow('bench-resume', chain);
  const latencies: number[] = [];
  const replays: number[] = [];
  for (let i = 0; i < samples; i++) {
    const { frames } = await readSse(
      `${client.baseUrl}/v1/workflows/bench-resume/runs`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...client.auth }, body: '{}' },
      (f) => f.event !== 'run.awaiting',
    );
    const awaiting = JSON.parse(frames.at(-1)!.data) as Extract<RunEvent, { type: 'run.awaiting' }>;
    const posted = Date.now();
    const res = await fetch(`${client.baseUrl}/v1/runs/${awaiting.runId}/requests/${awaiting.data.requestIds![0]}/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...client.auth },
      body: '{"approved":true}',
    });
    if (res.status !== 202) throw new Error(`respond: ${res.status} ${await res.text()}`);
    const events = await client.waitTerminal(awaiting.runId);
    const resumed = events.find((e) => e.type === 'run.resumed');
    const answered = events.find((e) => e.type === 'node.completed' && e.nodeId === 'ask');
    if (resumed) latencies.push(Date.parse(resumed.at) - posted);
    if (resumed && answered) replays.push(Date.parse(answered.at) - Date.parse(resumed.at));
  }
  return { answerToResumed: { p50: median(latencies), p99: percentile(latencies, 99) }, replayMsPer50Nodes: median(replays) };
}
