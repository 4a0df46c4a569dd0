import http, { type ServerResponse } from 'node:http';

/**
 * The baseline for SSE fan-out: a bare Node HTTP server that writes the same frames to every
 * connected client, with nothing between the event and the socket. Run as its own process.
 * GET /stream attaches a client; POST /replay { events, gapsMs } sends them and ends the streams.
 */
const clients = new Set<ServerResponse>();
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stream') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    clients.add(res);
    res.on('close', () => clients.delete(res));
    return;
  }
  if (req.method === 'GET' && req.url === '/clients') return void res.end(String(clients.size));
  if (req.method === 'POST' && req.url === '/replay') {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      res.end('ok');
      const { events, gapsMs } = JSON.parse(body) as { events: Array<Record<string, unknown>>; gapsMs: number[] };
      for (const [i, event] of events.entries()) {
        if (gapsMs[i] > 0) await new Promise((r) => setTimeout(r, gapsMs[i]));
        const frame = `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify({ ...event, at: new Date().toISOString() })}\n\n`;
        for (const c of clients) c.write(frame);
      }
      for (const c of clients) c.end();
    });
    return;
  }
  res.statusCode = 404;
  res.end();
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
process.on('SIGTERM', () => process.exit(0));
