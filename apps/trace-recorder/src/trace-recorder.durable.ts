import type { DurableSpec } from '@spindle/bus';
import type { BusNames } from '@spindle/contracts';

/** The recorder's one durable consumer on every run's events; a rebuild shares it. */
export function traceRecorderDurable(names: BusNames): DurableSpec {
  return { stream: names.eventsStream, durable: names.durables.traceRecorder, filterSubject: names.eventsWildcard, ackWaitMs: 30_000 };
}

export const BATCH_SIZE = 500;
