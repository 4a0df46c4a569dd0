import { randomBytes } from 'node:crypto';
import { DeliverPolicy, JetStreamApiCodes, type PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { Context } from '@opentelemetry/api';
import { runIdSchema, sealRunEvent, SpindleError, type RunEvent, type RunEventDraft } from '@spindle/contracts';
import { injectTraceContext, secretMasker, type SecretMasker } from '@spindle/telemetry';
import { maskSecretFieldsOf, secretFieldsOfDefinition } from './run-event-secrets';
import type { Bus } from './bus-connection';
import { retryBusFaults } from './bus-faults';
import { decodeRunMessage } from './run-event.decoder';
import { RunLogCursor } from './run-log-invariants';
import { DEFAULT_MAX_EVENT_BYTES, encodeLargeEvent } from './run-payloads';

/**
 * Where a run's log ends: its last valid `seq`, the stream sequence of the last message on its
 * subject (an append expects exactly that), and the bytes the log holds so far.
 */
export interface LogPosition {
  seq: number;
  streamSeq: number;
  bytes?: number;
  /** How many messages the run's subject holds (events are batched, so not `seq`); unknown when absent. */
  messages?: number;
}

export const EMPTY_LOG: LogPosition = { seq: 0, streamSeq: 0, bytes: 0, messages: 0 };

/** A run's log may not grow past this unless `maxLogBytes` says otherwise. */
export const DEFAULT_MAX_RUN_LOG_BYTES = 64 * 1024 * 1024;

/** Events that close something (a node, a call, the run) are small and always fit, so a run can end. */
const CLOSING = new Set<RunEvent['type']>(['node.failed', 'model.failed', 'run.failed', 'run.canceled', 'run.yielded']);

/** The header naming the writer of a message: how a writer knows its own, and readers a writer's. */
export const WRITER_HEADER = 'Spindle-Writer';

/** How many messages the run's subject holds with this one: lets a reader trust the last message alone. */
export const MESSAGE_COUNT_HEADER = 'Spindle-Messages';

/** A batch holds at most this many events, and stays this far under the server's message size. */
const MAX_BATCH_EVENTS = 512;
const BATCH_HEADROOM_BYTES = 16 * 1024;
/** Past this many bytes queued and not stored, `append` waits for the log before queueing more. */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

export interface RunLogWriterOptions {
  now?: () => Date;
  /** The trace context each appended event carries in its headers (W3C trace context). */
  traceContext?: () => Context;
  maxEventBytes?: number;
  /** The run's log refuses events beyond this many bytes (`run_log_limit_exceeded`). */
  maxLogBytes?: number;
  /** How long to keep retrying an append NATS does not answer before `bus_unavailable` (default 30 s). */
  retryForMs?: number;
  /** Stops retrying at once. */
  signal?: AbortSignal;
  /** Each publish attempt's own timeout. */
  attemptTimeoutMs?: number;
  /** At most this many events per message (default 512; 1 writes one message per event). */
  maxBatchEvents?: number;
  /** Told each event as it gets its seq (queued, not yet stored): the runner's OTel bridge. */
  onAppended?: (event: RunEvent) => void;
  /** Told each message once it is stored, with how many events it holds: the runner's metrics. */
  onStored?: (events: number) => void;
  /** What masks secrets before an event enters the log (default: the process's, `configureSecretMasking`). */
  masker?: SecretMasker;
  /**
   * Field names the run's definition declares secret (`definition.secrets`): their values are
   * masked wherever they appear in the run's data. A writer that appends `run.queued` takes them
   * from its definition.
   */
  secretFields?: ReadonlySet<string>;
}

/** An event with its seq, waiting for its batch to be stored. */
interface QueuedEvent {
  event: RunEvent;
  json: string;
  bytes: number;
  trace?: Context;
}

/**
 * The only way events enter a run's log. `append` gives an event the next `seq` and queues it;
 * `durable()` resolves once everything appended so far is stored. Group commit: while one
 * message of the run is in flight, the events appended meanwhile wait and go out together as ONE
 * message (a JSON array of consecutive events) when its ack returns, so a run that does not
 * wait for the log costs one round trip per batch, not per event. Readers decode a message as
 * one or more events (`decodeRunMessage`); nothing outside this library can tell.
 *
 * Each message names its events (`Nats-Msg-Id = <runId>:<seq>` or `<runId>:<first>-<last>`) and
 * the stream sequence it expects the run's subject to end at, so two writers can never
 * interleave one log: the loser gets `run_lost` and must stop. NATS not answering is retried
 * with the same message, id and expectation, so a message that landed but whose ack was lost is
 * recognised (by this writer's id in a header) rather than written twice. A message on the
 * subject that is not part of the log (garbage, a forged duplicate) does not take the run away:
 * the writer steps past it. Once a write fails, the writer is broken: every later `append` and
 * `durable()` rejects with that failure, and nothing appended after it is stored.
 */
export class RunLogWriter {
  /** What the log holds for sure: the last stored seq, the subject's end, its message count. */
  private stored: { seq: number; streamSeq: number; messages: number | undefined };
  private assignedSeq: number;
  private assignedBytes: number;
  private queue: QueuedEvent[] = [];
  private queuedBytes = 0;
  private flushing = false;
  private failure: unknown;
  private waiters: Array<{ seq: number; resolve: () => void; reject: (e: unknown) => void }> = [];
  /** Tells this writer's messages from any other's when an ack was lost. */
  private readonly writerId = randomBytes(8).toString('hex');
  private secretFields: ReadonlySet<string>;

  constructor(
    private readonly bus: Bus,
    readonly runId: string,
    from: LogPosition,
    private readonly opts: RunLogWriterOptions = {},
  ) {
    // Checked once here: every event this writer seals carries it.
    runIdSchema.parse(runId);
    this.stored = { seq: from.seq, streamSeq: from.streamSeq, messages: from.messages };
    this.assignedSeq = from.seq;
    this.assignedBytes = from.bytes ?? 0;
    this.secretFields = opts.secretFields ?? new Set();
  }

  /** The last seq given out (stored or queued). */
  get lastSeq(): number {
    return this.assignedSeq;
  }

  /** The last seq the log holds for sure. */
  get storedSeq(): number {
    return this.stored.seq;
  }

  get bytes(): number {
    return this.assignedBytes;
  }

  /**
   * Gives the event the next seq and queues it to be stored in order with the events around it.
   * Resolves with its seq as soon as it has one — not once it is stored: await `durable()` before
   * anything that must not happen unless the event is in the log. Rejects when the event does not
   * fit the log, or when an earlier write failed (the writer is broken).
   */
  async append(draft: RunEventDraft): Promise<number> {
    if (this.queuedBytes > MAX_QUEUED_BYTES) await this.durable();
    if (this.failure) throw this.failure;
    const seq = this.assignedSeq + 1;
    if (draft.type === 'run.queued') this.secretFields = secretFieldsOfDefinition(draft.data.definition);
    // Its data checked against its type's schema; the envelope is this writer's and the engine's own.
    let event = sealRunEvent(maskSecretFieldsOf(draft, this.secretFields), {
      runId: this.runId,
      seq,
      at: (this.opts.now?.() ?? new Date()).toISOString(),
    });
    // Secrets never enter the log: masked in the text, and the event read back from it when one was.
    const unmasked = JSON.stringify(event);
    const json = (this.opts.masker ?? secretMasker()).maskJsonText(unmasked);
    if (json !== unmasked) event = JSON.parse(json) as RunEvent;
    const bytes = Buffer.byteLength(json);
    const limit = this.opts.maxLogBytes ?? DEFAULT_MAX_RUN_LOG_BYTES;
    if (this.assignedBytes + bytes > limit && !CLOSING.has(event.type)) {
      throw new SpindleError(
        'run_log_limit_exceeded',
        `run ${this.runId}: the log would exceed its limit of ${limit} bytes ` +
          `(it holds ${this.assignedBytes}; ${event.type} adds ${bytes})`,
      );
    }
    this.assignedSeq = seq;
    this.assignedBytes += bytes;
    this.queue.push({ event, json, bytes, trace: this.opts.traceContext?.() });
    this.queuedBytes += bytes;
    this.scheduleFlush();
    this.opts.onAppended?.(event);
    return seq;
  }

  /** Resolves once every event appended so far is stored; rejects with the write failure if one failed. */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.stored.seq >= this.assignedSeq) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ seq: this.assignedSeq, resolve, reject }));
  }

  /** Appends one event and waits until it is stored: for writers of a single event (start, cancel, answer, fork). */
  async write(draft: RunEventDraft): Promise<number> {
    const seq = await this.append(draft);
    await this.durable();
    return seq;
  }

  /**
   * An idle writer writes at the next turn of the event loop, so the events a run appends without
   * waiting (a pure step's start, end and checkpoint) leave as one message; a busy writer's queue
   * leaves when the message in flight is acknowledged.
   */
  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0 && !this.failure) {
        const batch = this.takeBatch();
        await this.store(batch);
        this.queuedBytes -= batch.reduce((n, q) => n + q.bytes, 0);
        this.settleWaiters();
      }
    } catch (e) {
      this.failure = e;
      this.queue = [];
      for (const w of this.waiters.splice(0)) w.reject(e);
    } finally {
      this.flushing = false;
    }
  }

  /** The oldest queued events that fit one message. */
  private takeBatch(): QueuedEvent[] {
    const maxEvents = this.opts.maxBatchEvents ?? MAX_BATCH_EVENTS;
    const maxBytes = Math.max(64 * 1024, (this.bus.nc.info?.max_payload ?? 1024 * 1024) - BATCH_HEADROOM_BYTES);
    const large = this.opts.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    let bytes = 0;
    let n = 0;
    for (const q of this.queue) {
      // An event over the payload limit goes out as a reference (small); count the bound it is kept under.
      const size = Math.min(q.bytes, large) + 1;
      if (n > 0 && (n >= maxEvents || bytes + size > maxBytes)) break;
      bytes += size;
      n++;
    }
    return this.queue.splice(0, n);
  }

  private settleWaiters(): void {
    const done = this.waiters.filter((w) => w.seq <= this.stored.seq);
    this.waiters = this.waiters.filter((w) => w.seq > this.stored.seq);
    for (const w of done) w.resolve();
  }

  /** Stores one batch as one message, retrying NATS faults; moves `stored` past it. */
  private async store(batch: QueuedEvent[]): Promise<void> {
    const large = this.opts.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    const parts: string[] = [];
    // Sizes were measured at append; only an event over the limit goes through the object store.
    for (const q of batch) {
      parts.push(
        q.bytes <= large
          ? q.json
          : await retryBusFaults(`storing a payload of run ${this.runId}`, () => encodeLargeEvent(this.bus, q.event), this.retry()),
      );
    }
    const first = batch[0]!.event.seq;
    const last = batch.at(-1)!.event.seq;
    const payload = parts.length === 1 ? parts[0]! : `[${parts.join(',')}]`;
    const msgID = first === last ? `${this.runId}:${last}` : `${this.runId}:${first}-${last}`;
    const headers = natsHeaders();
    const trace = batch[0]!.trace;
    if (trace) injectTraceContext(headers, trace);
    headers.set(WRITER_HEADER, this.writerId);
    const streamSeq = await retryBusFaults(
      `appending to run ${this.runId}`,
      () => this.publish(last, msgID, payload, headers),
      this.retry(),
    );
    this.stored = { seq: last, streamSeq, messages: this.stored.messages === undefined ? undefined : this.stored.messages + 1 };
    this.opts.onStored?.(batch.length);
  }

  /** One attempt; resolves with the stored message's stream sequence. */
  private async publish(seq: number, msgID: string, payload: string, headers: MsgHdrs): Promise<number> {
    // Recomputed each attempt: stepping past a message that is not part of the log adds one.
    if (this.stored.messages !== undefined) headers.set(MESSAGE_COUNT_HEADER, String(this.stored.messages + 1));
    let ack: PubAck;
    try {
      ack = await this.bus.js.publish(this.bus.names.eventSubject(this.runId), payload, {
        msgID,
        expect: { lastSubjectSequence: this.stored.streamSeq },
        headers,
        timeout: this.opts.attemptTimeoutMs ?? 5_000,
      });
    } catch (e) {
      if (!isWrongLastSequence(e)) throw e;
      return this.afterConflict(seq, msgID, payload, headers, e);
    }
    // A duplicate is ours when an earlier attempt landed and its ack was lost; else another writer's.
    if (ack.duplicate && !(await this.isOurs(ack.seq))) throw lost(this.runId, seq);
    return ack.seq;
  }

  private async isOurs(streamSeq: number): Promise<boolean> {
    const stored = await this.bus.jsm.streams.getMessage(this.bus.names.eventsStream, { seq: streamSeq });
    return stored?.header?.get(WRITER_HEADER) === this.writerId;
  }

  /**
   * The subject moved past where this writer expected it. Our own earlier attempt → done; a
   * valid next event from someone else → the run is lost; only messages that are not part of the
   * log → step past them and try again.
   */
  private async afterConflict(seq: number, msgID: string, payload: string, headers: MsgHdrs, cause: unknown): Promise<number> {
    const cursor = new RunLogCursor({ lastSeq: this.stored.seq, ended: false });
    const consumer = await this.bus.js.consumers.get(this.bus.names.eventsStream, {
      filter_subjects: this.bus.names.eventSubject(this.runId),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: this.stored.streamSeq + 1,
    });
    const messages = await consumer.fetch({ max_messages: 1_000, expires: 2_000 });
    let lastStreamSeq = this.stored.streamSeq;
    let stepped = 0;
    try {
      for await (const msg of messages) {
        if (msg.headers?.get('Nats-Msg-Id') === msgID && msg.headers?.get(WRITER_HEADER) === this.writerId) return msg.seq;
        const decoded = await decodeRunMessage(this.bus, msg);
        if (decoded.ok && cursor.accept(decoded.events[0]!).ok) throw lost(this.runId, seq, cause);
        lastStreamSeq = msg.seq;
        stepped++;
        if (msg.info.pending === 0) break;
      }
    } finally {
      messages.stop();
    }
    if (lastStreamSeq === this.stored.streamSeq) throw lost(this.runId, seq, cause);
    const counted = this.stored.messages === undefined ? undefined : this.stored.messages + stepped;
    this.stored = { ...this.stored, streamSeq: lastStreamSeq, messages: counted };
    return this.publish(seq, msgID, payload, headers);
  }

  private retry() {
    return { retryForMs: this.opts.retryForMs ?? 30_000, signal: this.opts.signal };
  }
}

function isWrongLastSequence(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === JetStreamApiCodes.StreamWrongLastSequence || /wrong last sequence/i.test(String((e as Error)?.message));
}

function lost(runId: string, seq: number, cause?: unknown): SpindleError {
  return new SpindleError('run_lost', `run ${runId}: another writer appended seq ${seq} first`, { cause });
}
