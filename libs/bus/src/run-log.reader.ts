import { DeliverPolicy, JetStreamApiCodes, type Consumer, type StoredMsg } from '@nats-io/jetstream';
import type { RunEvent, RunEventOf } from '@spindle/contracts';
import type { MsgHdrs } from '@nats-io/transport-node';
import type { Bus } from './bus-connection';
import { asBusFault } from './bus-faults';
import { decodeRunMessage } from './run-event.decoder';
import { RunLogCursor, type LogCursorState } from './run-log-invariants';
import { MESSAGE_COUNT_HEADER, WRITER_HEADER, type LogPosition } from './run-log.writer';

/** A message on a run's subject that is not part of its log, and why (for a log line, never for truth). */
export interface SkippedMessage {
  runId: string;
  streamSeq: number;
  reason: string;
}

export interface ReadOptions {
  /** Told about each message skipped as not part of the log. */
  onSkip?: (skipped: SkippedMessage) => void;
}

/** The last message of a run's subject as a read found it: where a later read may stop (handed back as it is, never built). */
export type RunLogEnd = StoredMsg;

/** A run's last event, where its log stood, and the message it ended at. */
export interface RunLogTail {
  event: RunEvent;
  position: LogPosition;
  end: RunLogEnd;
}

/** The stream sequence of the last message on the run's subject, whatever it holds. */
async function lastMessageOf(bus: Bus, runId: string): Promise<StoredMsg | undefined> {
  try {
    return (await bus.jsm.streams.getMessage(bus.names.eventsStream, { last_by_subj: bus.names.eventSubject(runId) })) ?? undefined;
  } catch (e) {
    if ((e as { code?: unknown })?.code === JetStreamApiCodes.NoMessageFound) return undefined;
    throw asBusFault(e, `reading the end of run ${runId}'s log`);
  }
}

/**
 * The run's last event and where its log ends; `undefined` when the run has no log. Fast when the
 * subject looks exactly as writers leave it: its last message was stored by a run log writer
 * (their headers: message id ending at the event's seq, a writer id, the number of messages the
 * subject holds with it) and that number is the subject's count. Anything else (garbage, a
 * forged or replayed event) is settled by a full read. Forging the writers' headers takes
 * publish rights the NATS permissions give writers only.
 */
export async function lastEventOf(bus: Bus, runId: string, opts: ReadOptions = {}): Promise<RunLogTail | undefined> {
  const last = await lastMessageOf(bus, runId);
  if (!last) return undefined;
  const decoded = await decodeRunMessage(bus, last).catch((e) => Promise.reject(asBusFault(e, `reading run ${runId}'s log`)));
  const event = decoded.ok ? decoded.events.at(-1) : undefined;
  if (event && writtenByWriter(last, runId, event.seq)) {
    if (isOnlyMessage(last)) return { event, position: { seq: event.seq, streamSeq: last.seq, messages: 1 }, end: last };
    // Logs written before writers counted their messages held one event per message.
    const expected = Number(last.header?.get(MESSAGE_COUNT_HEADER) || event.seq);
    const messages = await messagesOn(bus, runId);
    if (expected === messages) return { event, position: { seq: event.seq, streamSeq: last.seq, messages }, end: last };
  }
  const { events, position } = await readRunLog(bus, runId, 0, { ...opts, end: last });
  const lastEvent = events.at(-1);
  return lastEvent && position ? { event: lastEvent, position, end: last } : undefined;
}

/**
 * The subject's last message is its only one when the server stored it on an empty subject:
 * it carries the expectation `Nats-Expected-Last-Subject-Sequence: 0` the server enforced (a
 * replay of it could only be stored by breaking that expectation, which the server refuses).
 */
function isOnlyMessage(last: StoredMsg): boolean {
  return last.header?.get('Nats-Expected-Last-Subject-Sequence') === '0' && last.header?.get(MESSAGE_COUNT_HEADER) === '1';
}

function writtenByWriter(msg: StoredMsg, runId: string, seq: number): boolean {
  const id = msg.header?.get('Nats-Msg-Id') ?? '';
  return (id === `${runId}:${seq}` || (id.startsWith(`${runId}:`) && id.endsWith(`-${seq}`))) && Boolean(msg.header?.get(WRITER_HEADER));
}

async function messagesOn(bus: Bus, runId: string): Promise<number> {
  const subject = bus.names.eventSubject(runId);
  try {
    const info = await bus.jsm.streams.info(bus.names.eventsStream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  } catch (e) {
    throw asBusFault(e, `counting run ${runId}'s events`);
  }
}

/**
 * The run's `run.queued` (its first event: what it runs, whose it is), or `undefined` when the
 * run has no log. One message read when the subject's first message is a writer's seq 1; anything
 * else is settled by a full read.
 */
export async function firstEventOf(bus: Bus, runId: string, opts: ReadOptions = {}): Promise<RunEventOf<'run.queued'> | undefined> {
  const first = await firstMessageOf(bus, runId);
  if (!first) return undefined;
  const decoded = await decodeRunMessage(bus, first).catch((e) => Promise.reject(asBusFault(e, `reading run ${runId}'s log`)));
  const event = decoded.ok ? decoded.events[0] : undefined;
  if (decoded.ok && event?.type === 'run.queued' && event.seq === 1 && writtenByWriter(first, runId, decoded.events.at(-1)!.seq)) {
    return event;
  }
  const { events } = await readRunLog(bus, runId, 0, opts);
  return events[0]?.type === 'run.queued' ? events[0] : undefined;
}

/**
 * The trace context the run's `run.queued` was written in (its message's headers): the trace a run
 * belongs to, for a command that arrived without one (a start the admission sent from a row the
 * log's projection made before the gateway's, which carries the request's context).
 */
export async function runTraceHeaders(bus: Bus, runId: string): Promise<MsgHdrs | undefined> {
  return (await firstMessageOf(bus, runId))?.header;
}

async function firstMessageOf(bus: Bus, runId: string): Promise<StoredMsg | undefined> {
  try {
    // `next_by_subj` is in the server's API since 2.9; the client's type lists only seq and last_by_subj.
    const request = { seq: 1, next_by_subj: bus.names.eventSubject(runId) } as unknown as { seq: number };
    return (await bus.jsm.streams.getMessage(bus.names.eventsStream, request)) ?? undefined;
  } catch (e) {
    if ((e as { code?: unknown })?.code === JetStreamApiCodes.NoMessageFound) return undefined;
    throw asBusFault(e, `reading the start of run ${runId}'s log`);
  }
}

/**
 * Every event of a run's log with `seq > afterSeq`, read once up to the current end, or up to
 * `end` (a message an earlier read found last: a reader that follows the rest live stops there).
 * `position` is the last valid event's seq and the stream sequence of the subject's last message
 * (a writer appends after it, past any message that is not part of the log).
 */
export async function readRunLog(
  bus: Bus,
  runId: string,
  afterSeq = 0,
  opts: ReadOptions & { end?: RunLogEnd } = {},
): Promise<{ events: RunEvent[]; position: LogPosition | undefined }> {
  const last = opts.end ?? (await lastMessageOf(bus, runId));
  if (!last) return { events: [], position: undefined };
  const only = await onlyMessageEvents(bus, runId, last);
  if (only) return { events: only.events.filter((e) => e.seq > afterSeq), position: only.position };
  const events: RunEvent[] = [];
  let bytes = 0;
  const tail = followRunLog(bus, runId, 0, { ...opts, endAtStreamSeq: last.seq });
  try {
    for await (const item of tail) {
      bytes += item.bytes;
      if (item.event.seq > afterSeq) events.push(item.event);
    }
  } finally {
    tail.stop();
  }
  const lastSeq = tail.cursor().lastSeq;
  return { events, position: lastSeq > 0 ? { seq: lastSeq, streamSeq: last.seq, bytes, messages: tail.messages() } : undefined };
}

/** A log of one writer message (a run just queued), read from that message alone: no consumer. */
async function onlyMessageEvents(
  bus: Bus,
  runId: string,
  last: StoredMsg,
): Promise<{ events: RunEvent[]; position: LogPosition } | undefined> {
  if (!isOnlyMessage(last) || !last.header?.get(WRITER_HEADER)) return undefined;
  const decoded = await decodeRunMessage(bus, last).catch((e) => Promise.reject(asBusFault(e, `reading run ${runId}'s log`)));
  if (!decoded.ok || !writtenByWriter(last, runId, decoded.events.at(-1)!.seq)) return undefined;
  const cursor = new RunLogCursor();
  if (!decoded.events.every((event) => cursor.accept(event).ok)) return undefined;
  return { events: decoded.events, position: { seq: cursor.lastSeq, streamSeq: last.seq, bytes: decoded.bytes, messages: 1 } };
}

export interface RunLogFollower extends AsyncIterable<{ event: RunEvent; streamSeq: number; bytes: number }> {
  stop(): void;
  /** Where the follower stands in the log (last accepted seq, ended or not). */
  cursor(): LogCursorState;
  /** Messages read on the subject so far, whatever they held. */
  messages(): number;
}

export interface FollowOptions extends ReadOptions {
  /** End after a terminal event. */
  untilTerminal?: boolean;
  /** End once the message at this stream sequence (or the last one there is) was read. */
  endAtStreamSeq?: number;
  /** Start at this stream sequence, knowing the log up to there (a live feed after a history read). */
  from?: { streamSeq: number; cursor: LogCursorState };
}

/**
 * History then live, as one ordered sequence: an ordered consumer on the run's subject delivers
 * stored events and then new ones with nothing lost or repeated between the two. Every message
 * is decoded (one event, or a writer's batch of them) and each event checked against the log's
 * invariants; what fails is skipped. Events with `seq <= afterSeq` are checked but not yielded.
 * A message's `bytes` count with its first event yielded.
 */
export function followRunLog(bus: Bus, runId: string, afterSeq = 0, opts: FollowOptions = {}): RunLogFollower {
  let stopped = false;
  let stopConsumer: (() => void) | undefined;
  let read = 0;
  const cursor = new RunLogCursor(opts.from?.cursor);
  const skip = (streamSeq: number, reason: string) => opts.onSkip?.({ runId, streamSeq, reason });
  const iterate = async function* () {
    const consumer = await bus.js.consumers
      .get(bus.names.eventsStream, {
        filter_subjects: bus.names.eventSubject(runId),
        ...(opts.from
          ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: opts.from.streamSeq }
          : { deliver_policy: DeliverPolicy.All }),
      })
      .catch((e) => Promise.reject(asBusFault(e, `opening run ${runId}'s log`)));
    try {
      if (!stopped) yield* readMessages(consumer);
    } finally {
      // An ordered consumer outlives its reader by five minutes on the server unless deleted, and
      // each message on the stream is matched against every one: a thousand SSE clients' history
      // reads left a thousand, and slowed every append after them.
      consumer.delete().catch(() => undefined);
    }
  };
  const readMessages = async function* (consumer: Consumer) {
    const messages = await consumer
      .consume({ max_messages: 256 })
      .catch((e) => Promise.reject(asBusFault(e, `reading run ${runId}'s log`)));
    stopConsumer = () => messages.stop();
    // Stopped while the consumer was being opened: nothing stopped it then.
    if (stopped) messages.stop();
    try {
      for await (const msg of messages) {
        read++;
        const decoded = await decodeRunMessage(bus, msg).catch((e) => Promise.reject(asBusFault(e, `reading run ${runId}'s log`)));
        const atEnd = opts.endAtStreamSeq !== undefined && (msg.seq >= opts.endAtStreamSeq || msg.info.pending === 0);
        if (!decoded.ok) skip(msg.seq, decoded.reason);
        else {
          let bytes = decoded.bytes;
          for (const event of decoded.events) {
            const verdict = cursor.accept(event);
            if (!verdict.ok) skip(msg.seq, verdict.reason);
            else if (event.seq > afterSeq) {
              yield { event, streamSeq: msg.seq, bytes };
              bytes = 0;
            }
            if (verdict.ok && opts.untilTerminal && cursor.ended) return;
          }
        }
        if (atEnd) return;
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
    cursor: () => ({ lastSeq: cursor.lastSeq, ended: cursor.ended }),
    messages: () => read,
  };
}
