import http from 'node:http';

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/**
 * Attaches `count` SSE clients; each records, for every event frame, arrival time minus the
 * event's `at` (stamped by its publisher just before publishing), until the server ends it.
 */
export interface Delivery {
  at: number;
  latencyMs: number;
}

export function attachSseClients(
  url: string,
  count: number,
  auth: Record<string, string> = {},
): { connected: Promise<void>; done: Promise<Delivery[]> } {
  const latencies: Delivery[] = [];
  let connectedCount = 0;
  let onConnected: () => void;
  const connected = new Promise<void>((r) => (onConnected = r));
  const clients = Array.from(
    { length: count },
    () =>
      new Promise<void>((resolve, reject) => {
        const req = http.get(url, { agent, headers: { accept: 'text/event-stream', ...auth } }, (res) => {
          if (++connectedCount === count) onConnected();
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            const now = Date.now();
            buffer += chunk;
            let end: number;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const data = block.split('\n').find((l) => l.startsWith('data: '));
              if (!data || !(block.startsWith('id: ') || block.includes('\nid: '))) continue;
              const at = Date.parse((JSON.parse(data.slice(6)) as { at: string }).at);
              latencies.push({ at, latencyMs: now - at });
            }
          });
          res.on('end', resolve);
          res.on('error', reject);
        });
        req.on('error', reject);
      }),
  );
  return { connected, done: Promise.all(clients).then(() => latencies) };
}
