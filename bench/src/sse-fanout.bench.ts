import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import type { RunEvent } from '@spindle/contracts';
import type { GatewayClient } from './gateway-client';
import { attachSseClients, type Delivery } from './sse-clients';
import { percentile } from './stats';

export interface FanoutResult {
  clients: number;
  events: number;
  spindle: { p50: number; p99: number };
  bare: { p50: number; p99: number };
}

const HOLD_MS = 10_000;

/**
 * Publish → SSE-client latency with `clients` clients on one run: the run first holds for a
 * while (so every client is attached), then emits events at a steady pace. The same events with
 * the same gaps then go through a bare Node SSE server as the baseline.
 */
export async function measureSseFanout(client: GatewayClient, clients = 1_000, steps = 60): Promise<FanoutResult> {
  const ids = Array.from({ length: steps }, (_, i) => `tick_${i + 1}`);
  await client.putWorkflow('bench-fanout', {
    kind: 'graph',
    nodes: [
      { id: 'hold', type: 'function', function: 'sleep', args: { ms: HOLD_MS } },
      ...ids.map((id) => ({ id, type: 'function', function: 'sleep', args: { ms: 20 } })),
    ],
    edges: [{ from: 'hold', to: ids[0] }, ...ids.slice(1).map((id, i) => ({ from: ids[i], to: id }))],
  });
  const runId = await client.startRun('bench-fanout');
  const attached = attachSseClients(`${client.baseUrl}/v1/runs/${runId}/events`, clients, client.auth);
  await attached.connected;
  const liveFrom = Date.now() + 1_000;
  const deliveries = await attached.done;
  const events = (await client.events(runId)).events;
  const live = events.filter((e) => Date.parse(e.at) >= liveFrom);
  const spindle = summarize(deliveries.filter((d) => d.at >= liveFrom));
  return { clients, events: live.length, spindle, bare: await bareFanout(live, clients) };
}

async function bareFanout(events: RunEvent[], clients: number): Promise<{ p50: number; p99: number }> {
  const server = spawn(process.execPath, [join(__dirname, 'bare-sse-server.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once('line', resolve));
    const base = `http://127.0.0.1:${port}`;
    const attached = attachSseClients(`${base}/stream`, clients);
    await attached.connected;
    while (Number(await (await fetch(`${base}/clients`)).text()) < clients) await new Promise((r) => setTimeout(r, 50));
    const gapsMs = events.map((e, i) => (i === 0 ? 0 : Date.parse(e.at) - Date.parse(events[i - 1].at)));
    await fetch(`${base}/replay`, { method: 'POST', body: JSON.stringify({ events, gapsMs }) });
    return summarize(await attached.done);
  } finally {
    server.kill('SIGTERM');
  }
}

function summarize(deliveries: Delivery[]) {
  const ms = deliveries.map((d) => d.latencyMs);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
}
