import { createHash } from 'node:crypto';
import { StorageType } from '@nats-io/jetstream';
import { Objm, type ObjectStore } from '@nats-io/obj';
import type { BusNames } from '@spindle/contracts';
import type { Bus } from './bus-connection';

/**
 * The bytes of uploaded files, in the JetStream object store, each stored once under its sha256:
 * two uploads of the same bytes (by any tenants) are one object. Who may read a file is the
 * gateway's `files` table; this store only keeps bytes by content.
 */
const stores = new WeakMap<Bus, Promise<ObjectStore>>();

export function fileBucketOf(names: BusNames): string {
  return `${names.eventsStream}_FILES`;
}

/** Creates (or opens) the bucket of file bytes. */
export function openFileStore(bus: Bus, replicas = 1): Promise<ObjectStore> {
  let store = stores.get(bus);
  if (!store) {
    store = new Objm(bus.js).create(fileBucketOf(bus.names), { storage: StorageType.File, replicas });
    stores.set(bus, store);
    store.catch(() => stores.delete(bus));
  }
  return store;
}

/** Drops the cached bucket handle, so the next open creates the bucket again (its stream was lost). */
export function forgetFileStore(bus: Bus): void {
  stores.delete(bus);
}

export function fileSha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Stores the bytes under their hash unless they are already there; answers the hash. */
export async function putFileBytes(bus: Bus, bytes: Uint8Array): Promise<{ sha256: string; bytes: number }> {
  const sha256 = fileSha256(bytes);
  const store = await openFileStore(bus);
  const existing = await store.info(sha256);
  if (!existing || existing.deleted) await store.putBlob({ name: sha256 }, bytes);
  return { sha256, bytes: bytes.byteLength };
}

/** The file's bytes, checked against their hash; undefined when the store has no such file. */
export async function readFileBytes(bus: Bus, sha256: string): Promise<Uint8Array | undefined> {
  const blob = await (await openFileStore(bus)).getBlob(sha256);
  if (!blob) return undefined;
  // The object store's own digest guards transport; this guards the name the bytes were asked by.
  if (fileSha256(blob) !== sha256) throw new Error(`file ${sha256} in the object store does not match its hash`);
  return blob;
}

/** Removes the bytes (when no file record names them any more); absent bytes are not an error. */
export async function deleteFileBytes(bus: Bus, sha256: string): Promise<void> {
  await (await openFileStore(bus)).delete(sha256).catch((e: unknown) => {
    if (!/not found/i.test(String((e as Error)?.message))) throw e;
  });
}
