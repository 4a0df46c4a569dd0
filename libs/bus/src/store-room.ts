import { isSpindleError, SpindleError } from '@spindle/contracts';
import { Gauge, type Registry } from 'prom-client';
import type { Bus } from './bus-connection';

/** JetStream's "insufficient resources": the store (its limit or its disk) has no room for the write. */
const INSUFFICIENT_RESOURCES = 10023;

/** How long a client should wait before writing again while the store is full. */
export const STORE_FULL_RETRY_AFTER_SEC = 30;

/** The write was refused for room: waiting a few seconds does not help, so it is never retried as a bus fault. */
export function isStoreFull(e: unknown): boolean {
  if (isSpindleError(e)) return e.code === 'storage_full';
  const err = e as { name?: unknown; code?: unknown; api_error?: { err_code?: unknown } };
  return err?.name === 'JetStreamApiError' && (err.code === INSUFFICIENT_RESOURCES || err.api_error?.err_code === INSUFFICIENT_RESOURCES);
}

export function storageFull(e: unknown, what: string): SpindleError {
  return new SpindleError('storage_full', `the JetStream store has no room left while ${what}: ${(e as Error).message}`, {
    cause: e,
    retryAfterSec: STORE_FULL_RETRY_AFTER_SEC,
  });
}

/**
 * Whether this process's last JetStream write was refused for room (and none stored since): what
 * a service's readiness reports, so a full store is not hidden behind "ready".
 */
class StoreRoom {
  private refusedAt = 0;
  private storedAt = 0;

  refused(): void {
    this.refusedAt = Date.now();
  }

  stored(): void {
    if (this.refusedAt > 0) this.storedAt = Date.now();
  }

  get full(): boolean {
    return this.refusedAt > this.storedAt;
  }
}

export const storeRoom = new StoreRoom();

/**
 * Readiness: while the last write was refused for room, a write of two bytes to the dead-letter
 * stream's `store-probe` subject asks whether there is room again (a not-ready service gets no
 * traffic, so it would otherwise never find out). One fixed message id: the probes of every
 * service after one recovery leave one message, which says when room came back. Throws while
 * there is none.
 */
export async function checkStoreRoom(bus: Bus): Promise<void> {
  if (!storeRoom.full) return;
  try {
    await bus.js.publish(bus.names.deadLetterSubject('store-probe'), '{}', { msgID: 'store-probe', timeout: 2_000 });
    storeRoom.stored();
  } catch (e) {
    if (isStoreFull(e)) storeRoom.refused();
    throw new Error(`the JetStream store has no room: ${(e as Error).message}`);
  }
}

/** `spindle_jetstream_store_full`: 1 while this process's last JetStream write was refused for room. */
export function watchStoreRoom(registry: Registry): void {
  new Gauge({
    name: 'spindle_jetstream_store_full',
    help: "1 while this process's last JetStream write was refused for room (insufficient resources)",
    registers: [registry],
    collect() {
      this.set(storeRoom.full ? 1 : 0);
    },
  });
}
