import { DeliverPolicy, JetStreamApiCodes, type JsMsg } from '@nats-io/jetstream';
import { runEventSchema, isTerminalEvent, type RunEvent } from '@spindle/contracts';
import type { Bus } from './bus-connection';
import { resolvePayload } from './run-payloads';
import type { LogPosition } from './run-log.writer';

/** The run's last event and where it sits in the stream; `undefined` when the run has no log. */
export async function lastEventOf(bus: Bus, runId: string): Promise<{ event: RunEvent; position: LogPosition } | undefined> {
  try {
    const msg = await bus.jsm.streams.getMessage(bus.names.eventsStream, { last_by_subj: bus.names.eventSubject(runId) });
    if (!msg) return undefined;
    const event = runEventSchema.parse(JSON.parse(Buffer.from(await resolvePayload(bus, msg.data)).toString('utf8'))) as RunEvent;
    return { event, position: { seq: event.seq, streamSeq: msg.seq } };
  } catch (e) {
    if ((e as { code?: unknown })?.code === JetStreamApiCodes.NoMessageFound) return undefined;
    throw e;
  }
}

/** Every event of a run's log with `seq > afterSeq`, read once up to the current end. */
export async function readRunLog(bus: Bus, runId: string, afterSeq = 0): Promise<{ events: RunEvent[]; position: LogPosition | undefined }> {
  const last = await lastEventOf(bus, runId);
  if (!last) return { events: [], position: undefined };
  const events: RunEvent[] = [];
  if (last.event.seq <= afterSeq) return { events, position: last.position };
  const tail = followRunLog(bus, runId, afterSeq);
  try {
    for await (const { event, streamSeq } of tail) {
      events.push(event);
      if (streamSeq >= last.position.streamSeq) break;
    }
  } finally {
    tail.stop();
  }
  return { events, position: last.position };
}

export interface RunLogFollower extends AsyncIterable<{ event: RunEvent; streamSeq: number }> {
  stop(): void;
}

/**
 * History then live, as one ordered sequence: an ordered consumer on the run's subject delivers
 * stored events and then new ones with nothing lost or repeated between the two. Events with
 * `seq <= afterSeq` are skipped. Ends after a terminal event when `untilTerminal` is set.
 */
export function followRunLog(bus: Bus, runId: string, afterSeq = 0, opts: { untilTerminal?: boolean } = {}): RunLogFollower {
  let stopped = false;
  let stopConsumer: (() => void) | undefined;
  const iterate = async function* () {
    const consumer = await bus.js.consumers.get(bus.names.eventsStream, {
      filter_subjects: bus.names.eventSubject(runId),
      deliver_policy: DeliverPolicy.All,
    });
    if (stopped) return;
    const messages = await consumer.consume({ max_messages: 256 });
    stopConsumer = () => messages.stop();
    try {
      for await (const msg of messages) {
        const event = await decode(bus, msg);
        if (event.seq <= afterSeq) continue;
        yield { event, streamSeq: msg.seq };
        if (opts.untilTerminal && isTerminalEvent(event)) return;
      }
    } finally {
      messages.stop();
    }
  };
  const generator = iterate();
  return {
    [Symbol.asyncIterator]: () => generator,
    stop() {
      stopped = true;
      stopConsumer?.();
    },
  };
}

async function decode(bus: Bus, msg: JsMsg): Promise<RunEvent> {
  // The writer validated every event; a failure here is a corrupt log and must be loud.
  return runEventSchema.parse(JSON.parse(Buffer.from(await resolvePayload(bus, msg.data)).toString('utf8'))) as RunEvent;
}
