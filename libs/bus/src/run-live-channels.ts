import type { Msg } from '@nats-io/transport-node';
import {
  jsonRpcMessageSchema,
  runControlSchema,
  tokenDeltaSchema,
  type JsonRpcMessage,
  type RunControl,
  type TokenDelta,
} from '@spindle/contracts';
import type { z } from 'zod';
import type { Bus } from './bus-connection';
import { parseMessageJson } from './message-json';

/**
 * The live channels, on core NATS (at most once, never stored): the two of a run that are not
 * part of its log, token deltas while a model streams (`run.tok.<runId>`; the log keeps the full
 * text) and control messages to the runner executing the run (`run.ctl.<runId>`; a cancel it
 * misses is caught by the gateway's check of the log); and an MCP client session's messages
 * about its calls in flight, to the gateway holding them (`mcp.ses.<key>`; an answer lost in a
 * reconnect leaves its question open until the client gives up on the call, and the request
 * stays answerable at /v1/requests).
 */
export interface LiveSubscription {
  close(): void;
}

export interface LiveHandlers<T> {
  /** Never throws out of the bus: a throw is reported to `onError` and the next message still arrives. */
  onMessage(value: T): void;
  /** A message that is not one (not JSON, fails its schema, another run's): dropped. */
  onInvalid?(subject: string, reason: string): void;
  onError?(error: unknown): void;
}

export function publishTokenDelta(bus: Bus, token: TokenDelta): void {
  // Tokens are best effort: a closed connection (the runner shutting down) drops them.
  if (!bus.nc.isClosed()) bus.nc.publish(bus.names.tokenSubject(token.runId), JSON.stringify(token));
}

export function subscribeTokenDeltas(bus: Bus, runId: string, handlers: LiveHandlers<TokenDelta>): LiveSubscription {
  return subscribeParsed(bus, bus.names.tokenSubject(runId), tokenDeltaSchema, handlers, (token) =>
    token.runId === runId ? undefined : `a token of run ${token.runId}`,
  );
}

export function publishRunControl(bus: Bus, runId: string, control: RunControl): void {
  bus.nc.publish(bus.names.controlSubject(runId), JSON.stringify(runControlSchema.parse(control)));
}

export function subscribeRunControl(bus: Bus, runId: string, handlers: LiveHandlers<RunControl>): LiveSubscription {
  return subscribeParsed(bus, bus.names.controlSubject(runId), runControlSchema, handlers);
}

/** A client's message about a call in flight (an answer to the server's request, a cancellation), to the gateway holding the call. */
export function publishMcpSessionMessage(bus: Bus, sessionKey: string, message: JsonRpcMessage): void {
  bus.nc.publish(bus.names.mcpSessionSubject(sessionKey), JSON.stringify(jsonRpcMessageSchema.parse(message)));
}

export function subscribeMcpSession(bus: Bus, sessionKey: string, handlers: LiveHandlers<JsonRpcMessage>): LiveSubscription {
  return subscribeParsed(bus, bus.names.mcpSessionSubject(sessionKey), jsonRpcMessageSchema, handlers);
}

function subscribeParsed<S extends z.ZodType>(
  bus: Bus,
  subject: string,
  schema: S,
  handlers: LiveHandlers<z.infer<S>>,
  refuse: (value: z.infer<S>) => string | undefined = () => undefined,
): LiveSubscription {
  const subscription = bus.nc.subscribe(subject, {
    // Nothing may throw out of a NATS callback: it would stop the connection's reader.
    callback: (err: Error | null, msg: Msg) => {
      try {
        if (err) return handlers.onError?.(err);
        const json = parseMessageJson(msg.data);
        if (!json.ok) return handlers.onInvalid?.(msg.subject, json.reason);
        const parsed = schema.safeParse(json.value);
        if (!parsed.success) return handlers.onInvalid?.(msg.subject, parsed.error.message);
        const refused = refuse(parsed.data);
        if (refused) return handlers.onInvalid?.(msg.subject, refused);
        handlers.onMessage(parsed.data);
      } catch (e) {
        try {
          handlers.onError?.(e);
        } catch {
          // A reporter that throws is not allowed to take the connection down either.
        }
      }
    },
  });
  return { close: () => subscription.unsubscribe() };
}
