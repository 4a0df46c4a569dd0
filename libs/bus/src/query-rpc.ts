import type { Subscription } from '@nats-io/transport-node';
import { isSpindleError, SpindleError, ErrorCodes, type ErrorCode, type QueryReply, type QueryService } from '@spindle/contracts';
import type { Bus } from './bus-connection';

export type QueryHandlers = Record<string, (payload: unknown) => Promise<unknown>>;

/**
 * Answers `svc.<service>.<op>` requests. Replicas share a queue group, so each request is
 * answered once. Every reply is `{ ok, result | error }`; a handler's Spindle error keeps its code.
 */
export function serveQueries(bus: Bus, service: QueryService, handlers: QueryHandlers, onError: (e: unknown) => void): Subscription[] {
  return Object.entries(handlers).map(([op, handler]) =>
    bus.nc.subscribe(bus.names.querySubject(service, op), {
      queue: `${service}-queries`,
      callback: (err, msg) => {
        if (err) return onError(err);
        void (async () => {
          let reply: QueryReply<unknown>;
          try {
            reply = { ok: true, result: await handler(msg.data.length ? msg.json() : {}) };
          } catch (e) {
            if (!isSpindleError(e)) onError(e);
            reply = { ok: false, error: isSpindleError(e) ? { code: e.code, message: e.message } : { code: 'internal', message: 'query failed' } };
          }
          msg.respond(JSON.stringify(reply));
        })();
      },
    }),
  );
}

/** Asks a service; its failures come back as `SpindleError`s, an absent service as `service_unavailable`. */
export async function query<T>(bus: Bus, service: QueryService, op: string, payload: unknown, timeoutMs = 10_000): Promise<T> {
  let reply: QueryReply<T>;
  try {
    const msg = await bus.nc.request(bus.names.querySubject(service, op), JSON.stringify(payload), { timeout: timeoutMs });
    reply = msg.json<QueryReply<T>>();
  } catch (e) {
    throw new SpindleError('service_unavailable', `the ${service} service did not answer ${op}: ${(e as Error).message}`, { cause: e });
  }
  if (reply.ok) return reply.result;
  const code: ErrorCode = reply.error.code in ErrorCodes ? (reply.error.code as ErrorCode) : 'internal';
  throw new SpindleError(code, reply.error.message);
}
