import type { BusNames } from '@spindle/contracts';

/**
 * What each live runner can run, in a JetStream KV bucket: one key per runner, written by that
 * runner at start and every announce interval, deleted when it stops. The bucket's max age (three
 * intervals) lets the entry of a runner that died without a word expire: nats-server 2.9 has no
 * per-key TTL, so the age of the bucket's messages is the only clock.
 */
export function capabilityBucketOf(names: BusNames): string {
  return `${names.eventsStream}_RUNNERS`;
}

/** The KV stream behind the bucket (JetStream names a bucket's stream `KV_<bucket>`). */
export function capabilityStreamOf(names: BusNames): string {
  return `KV_${capabilityBucketOf(names)}`;
}

/** A KV key is one token of `[-/=\w]`: a runner id (a host name and a pid, say) with anything else made `_`. */
export function capabilityKeyOf(runnerId: string): string {
  return runnerId.replace(/[^-=\w]/g, '_').slice(0, 200) || '_';
}
