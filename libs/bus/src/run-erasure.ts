import type { Bus } from './bus-connection';
import { openPayloadStore } from './run-payloads';

/**
 * Removes a run's log from JetStream: every message on its subject, and every payload the
 * object store holds for it (`<runId>.<seq>`). What remains of the run afterwards is nothing a
 * reader can find: `lastEventOf` says there is no such run. Safe to repeat.
 */
export async function purgeRunLog(bus: Bus, runId: string): Promise<{ messages: number; payloads: number }> {
  const store = await openPayloadStore(bus);
  const prefix = `${runId}.`;
  const payloads = (await store.list()).filter((info) => info.name.startsWith(prefix) && !info.deleted);
  for (const info of payloads) await store.delete(info.name);
  const purged = await bus.jsm.streams.purge(bus.names.eventsStream, { filter: bus.names.eventSubject(runId) });
  return { messages: purged.purged, payloads: payloads.length };
}
