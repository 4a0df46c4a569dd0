import { DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Bus } from './bus-connection';
import { fileBucketOf } from './file-store';
import { capabilityStreamOf } from './capability-bucket';
import { openPayloadStore, payloadBucket } from './run-payloads';

export interface StreamProvisioning {
  /** 1 locally, 3 in production. */
  replicas: number;
  /** Window in which a repeated `Nats-Msg-Id` is dropped as a duplicate. */
  duplicateWindowMs: number;
  /** How long a run's events, payloads and dead letters are kept; unset: for ever. */
  retentionMs?: number;
}

/**
 * Creates or updates the streams every service relies on. Safe to call from every service at
 * every start: an existing stream is updated to the same config, never recreated.
 */
export async function provisionStreams(bus: Bus, opts: StreamProvisioning = { replicas: 1, duplicateWindowMs: 120_000 }): Promise<void> {
  const { names } = bus;
  // JetStream refuses a duplicate window longer than the stream's max age.
  const duplicateWindowMs = Math.min(opts.duplicateWindowMs, opts.retentionMs ?? Infinity);
  const common = { storage: StorageType.File, num_replicas: opts.replicas, duplicate_window: nanos(duplicateWindowMs) };
  // Age is the only limit: no byte or message cap, so an append is never refused for room (capacity is watched instead).
  const retained = { max_age: opts.retentionMs === undefined ? 0 : nanos(opts.retentionMs), max_bytes: -1, max_msgs: -1 };
  await ensureStream(bus, {
    ...common,
    name: names.eventsStream,
    subjects: [names.eventsWildcard],
    retention: RetentionPolicy.Limits,
    ...retained,
    // The log is the source of truth: never drop old runs to make room (age alone ends them).
    discard: DiscardPolicy.New,
  });
  await ensureStream(bus, {
    ...common,
    name: names.commandsStream,
    subjects: [names.commandsWildcard],
    retention: RetentionPolicy.Workqueue,
  });
  await ensureStream(bus, {
    ...common,
    name: names.deadLetterStream,
    subjects: [names.deadLetterSubject('*')],
    retention: RetentionPolicy.Limits,
    ...retained,
  });
  await openPayloadStore(bus, opts.replicas);
  // The payload bucket's stream ages like the log it holds payloads for (a bucket made earlier is brought in line).
  await ensureStream(bus, { name: `OBJ_${payloadBucket(bus)}`, max_age: retained.max_age, duplicate_window: common.duplicate_window });
}

async function ensureStream(bus: Bus, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  try {
    await bus.jsm.streams.info(config.name);
  } catch (e) {
    if (!isNotFound(e)) throw e;
    try {
      await bus.jsm.streams.add(config);
      return;
    } catch (addError) {
      // Another service created it between our look-up and our add.
      if (!/already in use|already exists/i.test(String((addError as Error).message))) throw addError;
    }
  }
  await bus.jsm.streams.update(config.name, config);
}

export function isNotFound(e: unknown): boolean {
  const name = (e as { name?: string })?.name;
  return name === 'StreamNotFoundError' || name === 'ConsumerNotFoundError' || /not found/i.test(String((e as Error)?.message));
}

/** Deletes a namespace's streams (tests). */
export async function deleteStreams(bus: Bus): Promise<void> {
  const buckets = [`OBJ_${payloadBucket(bus)}`, `OBJ_${fileBucketOf(bus.names)}`, capabilityStreamOf(bus.names)];
  for (const name of [bus.names.eventsStream, bus.names.commandsStream, bus.names.deadLetterStream, ...buckets]) {
    await bus.jsm.streams.delete(name).catch((e) => {
      if (!isNotFound(e)) throw e;
    });
  }
}
