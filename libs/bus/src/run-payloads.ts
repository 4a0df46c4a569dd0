import { randomUUID } from 'node:crypto';
import { StorageType } from '@nats-io/jetstream';
import { Objm, type ObjectStore } from '@nats-io/obj';
import type { BusNames } from '@spindle/contracts';
import type { Bus } from './bus-connection';

/** Events larger than this keep their `data` in the object store; the log carries a reference. */
export const DEFAULT_MAX_EVENT_BYTES = 256 * 1024;

const REF = '$payload';

interface PayloadRef {
  bucket: string;
  name: string;
  bytes: number;
}

const stores = new WeakMap<Bus, Promise<ObjectStore>>();

export function payloadBucket(bus: Bus): string {
  return payloadBucketOf(bus.names);
}

export function payloadBucketOf(names: BusNames): string {
  return `${names.eventsStream}_PAYLOADS`;
}

/** Creates (or opens) the object store bucket for large payloads. */
export function openPayloadStore(bus: Bus, replicas = 1): Promise<ObjectStore> {
  let store = stores.get(bus);
  if (!store) {
    store = new Objm(bus.js).create(payloadBucket(bus), { storage: StorageType.File, replicas });
    stores.set(bus, store);
    store.catch(() => stores.delete(bus));
  }
  return store;
}

/** Drops the cached bucket handle, so the next open creates the bucket again (its stream was lost). */
export function forgetPayloadStore(bus: Bus): void {
  stores.delete(bus);
}

/**
 * The JSON to publish for an event too large for one message (the writer decides, from the size
 * it already measured): its `data` stored under `<runId>.<seq>` and replaced by a reference.
 */
export async function encodeLargeEvent(bus: Bus, event: { runId: string; seq: number; data: unknown }): Promise<string> {
  const data = Buffer.from(JSON.stringify(event.data));
  const name = `${event.runId}.${event.seq}`;
  const store = await openPayloadStore(bus);
  await store.putBlob({ name }, data);
  const ref: PayloadRef = { bucket: payloadBucket(bus), name, bytes: data.length };
  return JSON.stringify({ ...event, data: { [REF]: ref } });
}

/** The payload reference a parsed event carries in place of its `data`, if it carries one. */
function payloadRefOf(value: unknown): PayloadRef | undefined {
  const data = (value as { data?: unknown } | null)?.data;
  const ref = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[REF] : undefined;
  return ref && typeof (ref as PayloadRef).name === 'string' ? (ref as PayloadRef) : undefined;
}

/** Whether a parsed event keeps its `data` in the object store: only those need `resolvePayload`. */
export function hasPayloadRef(value: unknown): boolean {
  return payloadRefOf(value) !== undefined;
}

/**
 * One parsed event of a message with its payload reference (if any) resolved, so every reader
 * sees the event as it was written, and the bytes the resolved payload adds. A value that holds
 * no reference comes back as it is.
 */
export async function resolvePayload(bus: Bus, value: unknown): Promise<{ value: unknown; addedBytes: number }> {
  const ref = payloadRefOf(value);
  if (!ref) return { value, addedBytes: 0 };
  const parsed = value as { runId?: unknown; seq?: unknown };
  // A payload belongs to its own event: a message naming another run's payload reads nothing.
  if (ref.name !== `${String(parsed.runId)}.${String(parsed.seq)}`)
    throw missingPayload(`a run event names payload ${ref.name}, which is not its own`);
  const blob = await (await openPayloadStore(bus)).getBlob(ref.name);
  if (!blob) throw missingPayload(`payload ${ref.bucket}/${ref.name} of a run event is missing from the object store`);
  return { value: { ...parsed, data: JSON.parse(Buffer.from(blob).toString('utf8')) }, addedBytes: blob.byteLength };
}

function missingPayload(message: string): Error {
  return Object.assign(new Error(message), { code: 'missing_payload' });
}

/** Stores a query reply too large for one message; the asker fetches it once and deletes it. */
export async function storeLargeReply(bus: Bus, json: string): Promise<string> {
  const name = `reply.${randomUUID()}`;
  await (await openPayloadStore(bus)).putBlob({ name }, Buffer.from(json));
  return name;
}

export async function fetchLargeReply(bus: Bus, name: string): Promise<string> {
  const store = await openPayloadStore(bus);
  const blob = await store.getBlob(name);
  if (!blob) throw new Error(`query reply ${name} is missing from the object store`);
  await store.delete(name).catch(() => undefined);
  return Buffer.from(blob).toString('utf8');
}
