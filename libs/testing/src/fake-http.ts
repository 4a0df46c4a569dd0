import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the fake provider servers share: a node:http listener on a free local port, JSON and SSE
 * plumbing, and the word chunking their streamed replies use. No Jest imports, so a `.js` child
 * process can run them too.
 */
export abstract class FakeHttpServer {
  private readonly server: Server;
  private port = 0;

  constructor(private readonly name: string) {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((e: unknown) => {
        if (!res.headersSent) sendJson(res, 500, this.errorBody(`fake server failed: ${String(e)}`));
        else res.destroy();
      });
    });
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  protected abstract errorBody(message: string): unknown;

  /** e.g. `http://127.0.0.1:PORT/v1`; valid after `start()`. */
  get baseUrl(): string {
    if (this.port === 0) throw new Error(`${this.name}: call start() first`);
    return `http://127.0.0.1:${this.port}/v1`;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => {
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  /** Closes the listener and any open (e.g. streaming or keep-alive) connections. */
  stop(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.server.listening) return resolve();
      this.server.close((e) => (e ? reject(e) : resolve()));
      this.server.closeAllConnections();
    });
  }
}

/** Word plus its following whitespace, so the chunks join back to the exact text. */
export function splitWords(text: string): string[] {
  return text.match(/^\s*\S+\s*|\S+\s*/g) ?? (text === '' ? [] : [text]);
}

export const wordCount = (s: string): number => s.split(/\s+/).filter(Boolean).length;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export const readBody = async (req: IncomingMessage): Promise<string> => Buffer.concat((await req.toArray()) as Buffer[]).toString('utf8');

/** Aborts when the client closes the connection before the response finished. */
export function closedSignal(res: ServerResponse): AbortSignal {
  const ac = new AbortController();
  res.on('close', () => void (res.writableFinished || ac.abort()));
  return ac.signal;
}
