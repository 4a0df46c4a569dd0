import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { SpindleError } from '@spindle/contracts';

/** How a held port answers a request that is not a probe: the service's own refusal format. */
export type StartupAnswer = (error: SpindleError, url: string) => { status: number; headers: Record<string, string>; body: string };

const defaultAnswer: StartupAnswer = (error) => ({
  status: 503,
  headers: { 'content-type': 'application/problem+json', 'retry-after': String(Math.max(1, Math.ceil(error.retryAfterSec ?? 5))) },
  body: JSON.stringify({ status: 503, code: error.code, detail: error.message }),
});

/**
 * A service that waits at start for a dependency (Postgres during an outage) holds its port
 * meanwhile instead of leaving it closed: `/healthz` answers (a liveness probe must not restart a
 * process that is only waiting), `/readyz` says what it waits for, and every other request gets
 * the service's own 503 refusal with `Retry-After`, not a refused connection. The hold listens
 * only once something waits, and `bootstrapService` releases it just before the service listens.
 * One per process, as the port is.
 */
export class StartupHold {
  private target?: { port: number; host: string; answer: StartupAnswer };
  private server?: Server;
  private waiting?: { check: string; error: SpindleError };
  private listening: Promise<void> = Promise.resolve();

  /** Where to listen if something waits (`bootstrapService`, before the app is built). */
  arm(port: number, host: string, answer: StartupAnswer = defaultAnswer): void {
    this.target = { port, host, answer };
  }

  /**
   * Something the service needs does not answer yet; the port answers for it until `release`.
   * Settles once the port listens (or could not: then the service's own listen reports it).
   */
  waitingFor(check: string, error: SpindleError): Promise<void> {
    this.waiting = { check, error };
    if (this.server || !this.target) return this.listening;
    const server = createServer((req, res) => this.respond(req, res));
    this.listening = new Promise<void>((resolve) => {
      server.once('listening', resolve);
      server.on('error', () => {
        if (this.server === server) this.server = undefined;
        resolve();
      });
    });
    server.listen(this.target.port, this.target.host);
    this.server = server;
    return this.listening;
  }

  /** Closes the held port (and its keep-alive connections) so the service can listen on it. */
  async release(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.waiting = undefined;
    if (!server?.listening) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  get holding(): boolean {
    return this.server !== undefined;
  }

  private respond(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    const waiting = this.waiting;
    if (path === '/healthz') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    if (!waiting || !this.target) return void res.writeHead(503).end();
    if (path === '/readyz') {
      const checks = { [waiting.check]: `down: ${waiting.error.message}` };
      return void res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'not_ready', checks }));
    }
    const { status, headers, body } = this.target.answer(waiting.error, req.url ?? '/');
    res.writeHead(status, { ...headers, 'cache-control': 'no-store', connection: 'close' });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}

export const startupHold = new StartupHold();
