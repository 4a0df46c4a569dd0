import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runEventSchema, type RunEvent, type RunEventDraft } from '@spindle/contracts';
import { createSpindleClient } from './spindle-client';
import { isSpindleApiError, SpindleProtocolError } from './spindle-errors';

const RUN = '01J00000000000000000000000';
const FAST = { initialDelayMs: 5, maxDelayMs: 20 };

/** A valid log: queued, started, `nodes` set nodes, completed (2 + 2 × nodes + 1 events). */
function runLog(nodes: number): RunEvent[] {
  const root = { spanId: 'root', path: 'root' };
  const drafts: RunEventDraft[] = [
    { type: 'run.queued', ...root, data: { workflow: { name: 'w', version: 1 }, input: {}, state: {}, definition: {} } },
    { type: 'run.started', ...root, data: { attempt: 1, worker: 'w1' } },
  ];
  for (let i = 0; i < nodes; i++) {
    const node = { nodeId: `n${i}`, spanId: `s${i}`, parentSpanId: 'root', path: `root/n${i}` };
    drafts.push({ type: 'node.started', ...node, data: { nodeType: 'set', input: { i } } });
    drafts.push({ type: 'node.completed', ...node, data: { nodeType: 'set', output: { i }, durationMs: 1 } });
  }
  drafts.push({
    type: 'run.completed',
    ...root,
    data: { output: { done: true }, durationMs: 9, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
  });
  return drafts.map((d, i) => runEventSchema.parse({ ...d, runId: RUN, seq: i + 1, at: new Date(1e12 + i).toISOString() }) as RunEvent);
}

const frame = (e: RunEvent) => `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

/** One SSE request the scripted gateway holds open until the test writes to it or drops it. */
interface HeldStream {
  headers: IncomingHttpHeaders;
  url: string;
  send(events: RunEvent[]): void;
  write(text: string): void;
  /** Breaks the connection as a crashing gateway would (no end of the chunked body). */
  drop(): void;
  closedByClient: Promise<void>;
}

/**
 * A real HTTP server on a free port: each SSE request is handed to the test (`nextStream`) to
 * script; JSON requests for the events are answered from `log` (or by `json` when set).
 */
async function scriptedGateway(log: RunEvent[]) {
  const waiting: Array<(s: HeldStream) => void> = [];
  const held: HeldStream[] = [];
  const jsonRequests: string[] = [];
  let json: ((url: URL, res: ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (!(req.headers.accept ?? '').includes('text/event-stream')) {
      jsonRequests.push(`${url.pathname}${url.search}`);
      if (json) return json(url, res);
      const after = Number(url.searchParams.get('after') ?? 0);
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ events: log.filter((e) => e.seq > after), lastSeq: log.length, terminal: true }));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.flushHeaders();
    const stream: HeldStream = {
      headers: req.headers,
      url: `${url.pathname}${url.search}`,
      send: (events) => void res.write(events.map(frame).join('')),
      write: (text) => void res.write(text),
      drop: () => res.socket?.destroy(),
      closedByClient: new Promise((resolve) => res.on('close', () => resolve())),
    };
    held.push(stream);
    waiting.shift()?.(stream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    jsonRequests,
    answerJson: (handler: (url: URL, res: ServerResponse) => void) => (json = handler),
    /** The next SSE request (one that arrived already and was not taken yet, or the next to come). */
    nextStream: (() => {
      let taken = 0;
      return () =>
        held.length > taken ? Promise.resolve(held[taken++]) : new Promise<HeldStream>((r) => waiting.push((s) => (taken++, r(s))));
    })(),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Gateway = Awaited<ReturnType<typeof scriptedGateway>>;

describe('runs.follow', () => {
  let gateway: Gateway;
  afterEach(() => gateway?.close());

  it('sends the credential, yields every event after `after` in order, relays tokens, and ends at the terminal event', async () => {
    const log = runLog(2);
    gateway = await scriptedGateway(log);
    const tokens: string[] = [];
    const spindle = createSpindleClient({ baseUrl: `${gateway.baseUrl}/`, token: () => 'spk_abc' });
    const follow = spindle.runs.follow(RUN, { after: 1, onToken: (t) => tokens.push(t.delta), reconnect: FAST });
    const seen: number[] = [];
    const done = (async () => {
      for await (const e of follow) seen.push(e.seq);
    })();
    const stream = await gateway.nextStream();
    stream.write(': heartbeat\n\n');
    stream.send(log.slice(1, 3));
    stream.write(`event: token\ndata: ${JSON.stringify({ runId: RUN, nodeId: 'n0', spanId: 's0', index: 0, delta: 'hi' })}\n\n`);
    stream.send(log.slice(3));
    await done;
    expect(seen).toEqual(log.slice(1).map((e) => e.seq));
    expect(tokens).toEqual(['hi']);
    expect(stream.url).toBe(`/v1/runs/${RUN}/events?after=1`);
    expect(stream.headers.authorization).toBe('Bearer spk_abc');
    expect(stream.headers['last-event-id']).toBeUndefined();
    // The connection is let go at the run's end.
    await stream.closedByClient;
  });

  it('reconnects with Last-Event-ID after a dropped connection and skips what the new stream sends again', async () => {
    const log = runLog(3);
    gateway = await scriptedGateway(log);
    const states: string[] = [];
    const follow = createSpindleClient({ baseUrl: gateway.baseUrl }).runs.follow(RUN, {
      reconnect: FAST,
      onConnection: (s) => states.push(s),
    });
    const first = gateway.nextStream();
    const one = follow.next();
    (await first).send(log.slice(0, 3));
    const seen = [(await one).value as RunEvent];
    seen.push((await follow.next()).value as RunEvent, (await follow.next()).value as RunEvent);
    // Dropped in the middle of a frame: the half frame is never yielded.
    (await first).write(frame(log[3]).slice(0, 30));
    (await first).drop();

    const second = gateway.nextStream();
    const four = follow.next();
    const resumed = await second;
    expect(resumed.headers['last-event-id']).toBe('3');
    // A gateway that resends from further back: 2 and 3 come again.
    resumed.send(log.slice(1));
    seen.push((await four).value as RunEvent);
    for await (const e of follow) seen.push(e);
    expect(seen).toEqual(log);
    expect(states).toEqual(['open', 'retrying', 'open']);
  });

  it('fills a gap from the JSON events before going on', async () => {
    const log = runLog(3);
    gateway = await scriptedGateway(log);
    const follow = createSpindleClient({ baseUrl: gateway.baseUrl }).runs.follow(RUN, { reconnect: FAST });
    const seen: number[] = [];
    const done = (async () => {
      for await (const e of follow) seen.push(e.seq);
    })();
    const stream = await gateway.nextStream();
    stream.send([log[0], log[1], log[4], log[5], log[5]]);
    stream.send(log.slice(6));
    await done;
    expect(seen).toEqual(log.map((e) => e.seq));
    expect(gateway.jsonRequests).toEqual([`/v1/runs/${RUN}/events?after=2`]);
  });

  it('waits out a gateway that answers 503 and a gap fill that fails, then goes on', async () => {
    const log = runLog(1);
    gateway = await scriptedGateway(log);
    let failures = 2;
    gateway.answerJson((url, res) => {
      if (failures-- > 0) return res.writeHead(503, { 'content-type': 'application/problem+json' }).end('{"code":"service_unavailable"}');
      const after = Number(url.searchParams.get('after'));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ events: log.filter((e) => e.seq > after) }));
    });
    const follow = createSpindleClient({ baseUrl: gateway.baseUrl }).runs.follow(RUN, { reconnect: FAST });
    const seen: number[] = [];
    const done = (async () => {
      for await (const e of follow) seen.push(e.seq);
    })();
    const stream = await gateway.nextStream();
    stream.send([log[0], log[3], log[4]]);
    await done;
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(gateway.jsonRequests).toHaveLength(3);
  });

  it('rejects with the typed error when the gateway refuses (404 run_not_found), without retrying', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ title: 'run not found', status: 404, code: 'run_not_found', detail: `no run ${RUN}` }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    let requests = 0;
    server.on('request', () => requests++);
    const spindle = createSpindleClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    try {
      const error = await spindle.runs
        .follow(RUN, { reconnect: FAST })
        .next()
        .catch((e: unknown) => e);
      expect(isSpindleApiError(error, 'run_not_found')).toBe(true);
      expect(error).toMatchObject({ status: 404, code: 'run_not_found', detail: `no run ${RUN}` });
      expect(requests).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a frame that is not a run event', async () => {
    const log = runLog(1);
    gateway = await scriptedGateway(log);
    const follow = createSpindleClient({ baseUrl: gateway.baseUrl }).runs.follow(RUN, { reconnect: FAST });
    const first = follow.next();
    (await gateway.nextStream()).write(`id: 1\nevent: run.queued\ndata: ${JSON.stringify({ ...log[0], seq: 'one' })}\n\n`);
    const error = await first.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpindleProtocolError);
    expect((error as Error).message).toContain('seq');
  });

  it('ends quietly on abort, and closes the connection when the caller stops early', async () => {
    const log = runLog(2);
    gateway = await scriptedGateway(log);
    const spindle = createSpindleClient({ baseUrl: gateway.baseUrl });
    const controller = new AbortController();
    const aborted = spindle.runs.follow(RUN, { signal: controller.signal, reconnect: FAST });
    const next = aborted.next();
    const first = await gateway.nextStream();
    controller.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    await first.closedByClient;

    const stopped: number[] = [];
    const done = (async () => {
      for await (const e of spindle.runs.follow(RUN, { reconnect: FAST })) {
        stopped.push(e.seq);
        if (e.seq === 2) break;
      }
    })();
    const second = await gateway.nextStream();
    second.send(log.slice(0, 4));
    await done;
    expect(stopped).toEqual([1, 2]);
    await second.closedByClient;
  });
});
