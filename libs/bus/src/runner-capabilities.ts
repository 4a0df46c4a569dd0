import { DeliverPolicy, StorageType } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { runnerCapabilitiesSchema, type RunnerCapabilities } from '@spindle/contracts';
import type { Bus } from './bus-connection';
import { asBusFault } from './bus-faults';
import { parseMessageJson } from './message-json';
import { isNotFound } from './provision-streams';
import { capabilityBucketOf, capabilityKeyOf, capabilityStreamOf } from './capability-bucket';

export interface AnnounceOptions {
  /** How long an entry lives without a new announcement: the bucket's max age, set when it is made. */
  maxAgeMs: number;
  replicas?: number;
}

/** Writes (or rewrites) this runner's entry; makes the bucket first when there is none. */
export async function announceCapabilities(bus: Bus, capabilities: RunnerCapabilities, opts: AnnounceOptions): Promise<void> {
  const kv = await openBucket(bus, opts);
  await kv.put(capabilityKeyOf(capabilities.runnerId), JSON.stringify(capabilities));
}

/** Removes this runner's entry (a graceful stop): its functions stop counting at once. */
export async function withdrawCapabilities(bus: Bus, runnerId: string, opts: AnnounceOptions): Promise<void> {
  const kv = await openBucket(bus, opts);
  await kv.delete(capabilityKeyOf(runnerId));
}

function openBucket(bus: Bus, opts: AnnounceOptions) {
  return new Kvm(bus.js).create(capabilityBucketOf(bus.names), {
    history: 1,
    ttl: opts.maxAgeMs,
    storage: StorageType.File,
    replicas: opts.replicas ?? 1,
  });
}

/** An entry that is not a runner's announcement: skipped, and said why. */
export type SkippedCapabilities = (key: string, reason: string) => void;

/**
 * Every live runner's latest announcement. Read with an ordered consumer that delivers the last
 * message of each key: no bucket yet (no runner ever announced) is no runners; an entry that is
 * not JSON or not the schema is passed to `onSkipped` and left out, never thrown.
 */
export async function readRunnerCapabilities(bus: Bus, onSkipped: SkippedCapabilities): Promise<RunnerCapabilities[]> {
  return readAll(bus, onSkipped).catch((e: unknown) => Promise.reject(asBusFault(e, "reading the runners' capabilities")));
}

async function readAll(bus: Bus, onSkipped: SkippedCapabilities): Promise<RunnerCapabilities[]> {
  const stream = capabilityStreamOf(bus.names);
  const prefix = `$KV.${capabilityBucketOf(bus.names)}.`;
  try {
    const info = await bus.jsm.streams.info(stream);
    if (info.state.messages === 0) return [];
  } catch (e) {
    if (isNotFound(e)) return [];
    throw e;
  }
  const consumer = await bus.js.consumers.get(stream, { deliver_policy: DeliverPolicy.LastPerSubject });
  const messages = await consumer.fetch({ max_messages: 10_000, expires: 2_000 });
  const found: RunnerCapabilities[] = [];
  try {
    for await (const msg of messages) {
      const key = msg.subject.slice(prefix.length);
      const operation = msg.headers?.get('KV-Operation');
      if (operation !== 'DEL' && operation !== 'PURGE') {
        const json = parseMessageJson(msg.data);
        const parsed = json.ok ? runnerCapabilitiesSchema.safeParse(json.value) : undefined;
        if (!json.ok) onSkipped(key, json.reason);
        else if (!parsed?.success) onSkipped(key, `not a runner's capabilities: ${parsed?.error.message.slice(0, 500)}`);
        else found.push(parsed.data);
      }
      if (msg.info.pending === 0) break;
    }
  } finally {
    messages.stop();
    await consumer.delete().catch(() => undefined);
  }
  return found;
}
