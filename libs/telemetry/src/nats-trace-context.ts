import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  propagation,
  type Context,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { Match, type MsgHdrs } from '@nats-io/transport-node';

// NATS header lookups are case-sensitive by default; W3C says header names are
// case-insensitive, and non-JS producers may send `Traceparent`.
const natsSetter: TextMapSetter<MsgHdrs> = {
  set: (carrier, key, value) => carrier.set(key, value, Match.IgnoreCase),
};

const natsGetter: TextMapGetter<MsgHdrs> = {
  keys: (carrier) => carrier.keys(),
  // MsgHdrs.get returns '' for a missing key; the propagator API expects undefined.
  get: (carrier, key) => carrier.get(key, Match.IgnoreCase) || undefined,
};

/** Writes `traceparent` (and `baggage`) of `ctx` (default: active) into NATS headers. */
export function injectTraceContext(headers: MsgHdrs, ctx: Context = context.active()): void {
  propagation.inject(ctx, headers, natsSetter);
}

/**
 * Context carrying the remote span from NATS headers, layered on the active context.
 * Use it as `parent` of the consumer span; with no headers you get the active context.
 */
export function extractTraceContext(headers?: MsgHdrs): Context {
  const base = context.active();
  return headers ? propagation.extract(base, headers, natsGetter) : base;
}

/** Same for plain objects (HTTP-ish carriers, outbox rows, SSE payloads). */
export function injectIntoRecord(record: Record<string, string>, ctx: Context = context.active()): Record<string, string> {
  propagation.inject(ctx, record, defaultTextMapSetter);
  return record;
}

export function extractFromRecord(record?: Record<string, string | string[] | undefined>): Context {
  const base = context.active();
  return record ? propagation.extract(base, record, defaultTextMapGetter) : base;
}
