import type { RunEvent } from '@spindle/contracts';
import { readSse } from '@spindle/testing';

/** The few gateway calls the benchmarks make. */
export class GatewayClient {
  /** `auth`: the `Authorization` header to send (an admin key's). */
  constructor(
    readonly baseUrl: string,
    readonly auth: Record<string, string>,
  ) {}

  async putWorkflow(name: string, definition: unknown): Promise<void> {
    const res = await fetch(`${this.baseUrl}/v1/workflows/${name}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...this.auth },
      body: JSON.stringify(definition),
    });
    if (res.status >= 300) throw new Error(`PUT ${name}: ${res.status} ${await res.text()}`);
  }

  async startRun(name: string, body: unknown = {}): Promise<string> {
    const res = await fetch(`${this.baseUrl}/v1/workflows/${name}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.auth },
      body: JSON.stringify(body),
    });
    if (res.status !== 202) throw new Error(`POST run: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { runId: string }).runId;
  }

  async events(runId: string): Promise<{ events: RunEvent[]; terminal: boolean }> {
    const res = await fetch(`${this.baseUrl}/v1/runs/${runId}/events`, { headers: this.auth });
    return (await res.json()) as { events: RunEvent[]; terminal: boolean };
  }

  /** Follows the run's SSE stream to its end (one consumer per run, rather than polling). */
  async waitTerminal(runId: string): Promise<RunEvent[]> {
    const { frames } = await readSse(`${this.baseUrl}/v1/runs/${runId}/events`, { headers: this.auth });
    return frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data) as RunEvent);
  }

  async countRuns(workflow: string, status: string): Promise<number> {
    let count = 0;
    let cursor: string | null = null;
    do {
      const url = `${this.baseUrl}/v1/runs?workflow=${workflow}&status=${status}&limit=200${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await (await fetch(url, { headers: this.auth })).json()) as { runs: unknown[]; nextCursor: string | null };
      count += page.runs.length;
      cursor = page.nextCursor;
    } while (cursor);
    return count;
  }
}

export function chainOfFunctions(nodes: number, fn = 'noop', first?: unknown) {
  const ids = Array.from({ length: nodes }, (_, i) => `step_${i + 1}`);
  return {
    kind: 'graph',
    nodes: ids.map((id, i) => (i === 0 && first ? { id, ...(first as object) } : { id, type: 'function', function: fn })),
    edges: ids.slice(1).map((id, i) => ({ from: ids[i], to: id })),
  };
}
