import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export interface UnreadBodyLimits {
  /** The most body bytes still read and dropped before the answer goes anyway. */
  readonly maxBytes: number;
  /** The longest the answer waits for the next of them: a client still writing is waited for (the request deadline bounds the whole). */
  readonly lingerMs: number;
}

/**
 * An answer given before the request's body was read (a 401, 404 or 413 refuses it unread) waits
 * until the rest of the body has arrived and been dropped. Otherwise Node closes a `Connection:
 * close` socket with bytes still unread, the kernel resets it, and a client still writing sees
 * EPIPE or ECONNRESET instead of the problem+json: HTTP's lingering close, bounded in bytes and time.
 * The time is a pause between chunks, not a total: on a loaded machine a large body can take longer
 * than the pause to arrive, and cutting it off then reset the client all the same (Node's
 * `requestTimeout` still bounds the whole request).
 */
export function installUnreadBodyDrain(fastify: FastifyInstance, limits: UnreadBodyLimits): void {
  fastify.addHook('onSend', (request, _reply, payload, done) => {
    if (bodyIsIn(request.raw)) return done(null, payload);
    void unreadBodyDropped(request.raw, limits).then(() => done(null, payload));
  });
}

const bodyIsIn = (raw: IncomingMessage): boolean => raw.complete || raw.readableEnded || raw.destroyed;

/** Settles once the rest of the request's body has been read and dropped, or the limits are reached. */
export function unreadBodyDropped(raw: IncomingMessage, limits: UnreadBodyLimits): Promise<void> {
  if (bodyIsIn(raw)) return Promise.resolve();
  return new Promise((resolve) => {
    let dropped = 0;
    let timer = setTimeout(() => finish(), limits.lingerMs);
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', count).off('end', finish).off('error', finish).off('close', finish);
      resolve();
    };
    const count = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > limits.maxBytes) return finish();
      clearTimeout(timer);
      timer = setTimeout(finish, limits.lingerMs);
    };
    raw.on('data', count).once('end', finish).once('error', finish).once('close', finish);
    raw.resume();
  });
}
