import type { Bus } from './bus-connection';
import { openPayloadStore } from './run-payloads';

/**
 * Removes a run's log from JetStream: every message on its subject, then every payload the
 * object store holds for it (`<runId>.<seq>`). The log goes first: a log is never left naming
 * payloads that are gone, and a payload left behind by a failure is unreachable and expires with
 * the retention. Afterwards `lastEventOf` says there is no such run.
 */
export async function purgeRunLog(bus: Bus, runId: string): Promise<{ messages: number; payloads: number }> {
  const purged = await bus.jsm.streams.purge(bus.names.eventsStream, { filter: bus.names.eventSubject(runId) });
  const store = await openPayloadStore(bus);
  const prefix = `${runId}.`;
  const payloads = (await store.list()).filter((info) => info.name.startsWith(prefix) && !info.deleted);
  for (const info of payloads) await store.delete(info.name);
  return { messages: purged.purged, payloads: payloads.length };
}
