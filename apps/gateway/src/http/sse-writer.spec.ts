import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '@spindle/testing';
import { SseWriter } from './sse-writer';

describe('SseWriter', () => {
  let server: Server;
  let port: number;
  let handle: (res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((_, res) => handle(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Opens a stream; `body()` is what arrived so far, `ended` resolves with all of it. */
  const open = () => {
    let body = '';
    let response: IncomingMessage | undefined;
    const ended = new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
        response = res;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
    return { body: () => body, ended, headers: () => response?.headers, leave: () => response?.destroy() };
  };

  it('sends heartbeat comments while nothing else is written, and ends with what was waiting', async () => {
    let writer!: SseWriter;
    handle = (res) => {
      writer = new SseWriter(res, 20);
      writer.open({ 'x-extra': 'yes' });
    };
    const client = open();
    await eventually(async () => expect(client.body()).toContain(': heartbeat\n\n'));
    writer.data({ n: 1 });
    writer.end();
    const body = await client.ended;
    expect(client.headers()).toMatchObject({ 'content-type': 'text/event-stream; charset=utf-8', 'x-extra': 'yes' });
    expect(body.split('\n\n').filter((f) => f !== '' && f !== ': heartbeat')).toEqual(['data: {"n":1}']);
    expect(body.endsWith('data: {"n":1}\n\n')).toBe(true);
  });

  it('writes the frames of one turn of the event loop in one socket write, in order', async () => {
    const writes: string[] = [];
    handle = (res) => {
      const writer = new SseWriter(res, 60_000);
      writer.open();
      const write = res.write.bind(res);
      res.write = ((chunk: string) => (writes.push(chunk), write(chunk))) as typeof res.write;
      for (const n of [1, 2, 3]) writer.data(n);
      setImmediate(() => writer.end());
    };
    expect(await open().ended).toBe('data: 1\n\ndata: 2\n\ndata: 3\n\n');
    expect(writes).toEqual(['data: 1\n\ndata: 2\n\ndata: 3\n\n']);
  });

  it('says the client has gone, and does not keep a writer waiting for a drain that will not come', async () => {
    let writer!: SseWriter;
    handle = (res) => {
      writer = new SseWriter(res, 60_000);
      writer.open();
    };
    const client = open();
    await eventually(async () => expect(client.headers()).toBeDefined());
    client.leave();
    await eventually(async () => expect(writer.gone).toBe(true));
    await writer.drained();
    writer.data('after');
    writer.end();
    expect(writer.gone).toBe(true);
  });

  it('leaves no listener behind when it waits for a slow client to drain', async () => {
    let res!: ServerResponse;
    let writer!: SseWriter;
    handle = (r) => {
      res = r;
      writer = new SseWriter(r, 60_000);
      writer.open();
    };
    let client: IncomingMessage | undefined;
    request({ host: '127.0.0.1', port, path: '/' }, (incoming) => (client = incoming.pause())).end();
    await eventually(async () => expect(client).toBeDefined());
    const closeListeners = res.listenerCount('close');
    for (let wait = 0; wait < 3; wait++) {
      while (!res.writableNeedDrain) {
        writer.data('x'.repeat(64 * 1024));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const drained = writer.drained();
      client!.resume();
      await drained;
      client!.pause();
    }
    expect(res.listenerCount('close')).toBe(closeListeners);
    client!.destroy();
  });
});
