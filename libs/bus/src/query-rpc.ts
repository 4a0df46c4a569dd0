import type { Subscription } from '@nats-io/transport-node';
import {
  isSpindleError,
  SpindleError,
  ErrorCodes,
  type ErrorCode,
  type FieldIssue,
  type QueryReply,
  type QueryService,
} from '@spindle/contracts';
import type { Bus } from './bus-connection';
import { parseMessageJson } from './message-json';
import { fetchLargeReply, storeLargeReply } from './run-payloads';

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
            const payload = msg.data.length ? parseMessageJson(msg.data) : { ok: true as const, value: {} };
            if (!payload.ok) throw new SpindleError('validation_failed', `${op}: the query is ${payload.reason}`);
            reply = { ok: true, result: await handler(payload.value) };
          } catch (e) {
            if (!isSpindleError(e)) onError(e);
            reply = {
              ok: false,
              error: isSpindleError(e)
                ? {
                    code: e.code,
                    message: e.message,
                    ...(e.retryAfterSec !== undefined ? { retryAfterSec: e.retryAfterSec } : {}),
                    ...(e.issues?.length ? { issues: e.issues } : {}),
                  }
                : { code: 'internal', message: 'query failed' },
            };
          }
          msg.respond(await fitReply(bus, JSON.stringify(reply)));
        })().catch((e) => {
          onError(e);
          msg.respond(JSON.stringify({ ok: false, error: { code: 'service_unavailable', message: 'the reply could not be sent' } }));
        });
      },
    }),
  );
}

/** Asks a service; its failures come back as `SpindleError`s, an absent service as `service_unavailable`. */
export async function query<T>(bus: Bus, service: QueryService, op: string, payload: unknown, timeoutMs = 10_000): Promise<T> {
  let reply: QueryReply<T>;
  try {
    const msg = await bus.nc.request(bus.names.querySubject(service, op), JSON.stringify(payload), { timeout: timeoutMs });
    reply = await readReply<T>(bus, msg.json<QueryReply<T> | LargeReply>());
  } catch (e) {
    throw new SpindleError('service_unavailable', `the ${service} service did not answer ${op}: ${(e as Error).message}`, { cause: e });
  }
  if (reply.ok) return reply.result;
  const code: ErrorCode = reply.error.code in ErrorCodes ? (reply.error.code as ErrorCode) : 'internal';
  const issues = fieldIssuesOf(reply.error.issues);
  throw new SpindleError(code, reply.error.message, { retryAfterSec: reply.error.retryAfterSec, ...(issues && { issues }) });
}

/** The fields a service's refusal names, when they are what they should be (a reply is another process's word). */
function fieldIssuesOf(value: unknown): FieldIssue[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > 100) return undefined;
  const wellFormed = value.every(
    (i) => typeof i === 'object' && i !== null && typeof i.field === 'string' && typeof i.message === 'string',
  );
  return wellFormed
    ? value.map((i: FieldIssue) => ({ field: i.field, message: i.message, ...(typeof i.node === 'string' && { node: i.node }) }))
    : undefined;
}

/** A reply too large for one NATS message travels through the object store. */
interface LargeReply {
  $reply: string;
}

async function fitReply(bus: Bus, json: string): Promise<string> {
  // Leave room for headers and protocol framing under the server's message size limit.
  if (Buffer.byteLength(json) < bus.nc.info!.max_payload - 4_096) return json;
  return JSON.stringify({ $reply: await storeLargeReply(bus, json) } satisfies LargeReply);
}

async function readReply<T>(bus: Bus, reply: QueryReply<T> | LargeReply): Promise<QueryReply<T>> {
  if (!('$reply' in reply)) return reply;
  return JSON.parse(await fetchLargeReply(bus, reply.$reply)) as QueryReply<T>;
}
