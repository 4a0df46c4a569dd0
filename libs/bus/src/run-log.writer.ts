import { randomBytes } from 'node:crypto';
import { DeliverPolicy, JetStreamApiCodes, type PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { Context } from '@opentelemetry/api';
import { runEventSchema, SpindleError, type RunEvent, type RunEventDraft } from '@spindle/contracts';
import { injectTraceContext } from '@spindle/telemetry';
import type { Bus } from './bus-connection';
import { retryBusFaults } from './bus-faults';
import { decodeRunEvent } from './run-event.decoder';
import { RunLogCursor } from './run-log-invariants';
import { encodeEvent } from './run-payloads';

/**
 * Where a run's log ends: its last valid `seq`, the stream sequence of the last message on its
 * subject (an append expects exactly that), and the bytes the log holds so far.
 */
export interface LogPosition {
  seq: number;
  streamSeq: number;
  bytes?: number;
}

export const EMPTY_LOG: LogPosition = { seq: 0, streamSeq: 0, bytes: 0 };

/** A run's log may not grow past this unless `maxLogBytes` says otherwise. */
export const DEFAULT_MAX_RUN_LOG_BYTES = 64 * 1024 * 1024;

/** Events that close something (a node, a call, the run) are small and always fit, so a run can end. */
const CLOSING = new Set<RunEvent['type']>(['node.failed', 'model.failed', 'run.failed', 'run.canceled', 'run.yielded']);

/** The header naming the writer of a message: how a writer knows its own, and readers a writer's. */
export const WRITER_HEADER = 'Spindle-Writer';

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
}

/**
 * The only way events enter a run's log. Each append names the next `seq` (`Nats-Msg-Id =
 * <runId>:<seq>`) and the stream sequence it expects the run's subject to end at, so two
 * writers can never interleave one log: the loser gets `run_lost` and must stop.
 *
 * NATS not answering is retried with the same message id and expectation, so an append that
 * landed but whose ack was lost is recognised (by this writer's id in a header) rather than
 * written twice. A message on the subject that is not part of the log (garbage, a forged
 * duplicate) does not take the run away: the writer steps past it.
 */
export class RunLogWriter {
  private position: Required<LogPosition>;
  private tail: Promise<unknown> = Promise.resolve();
  /** Tells this writer's messages from any other's when an ack was lost. */
  private readonly writerId = randomBytes(8).toString('hex');

  constructor(
    private readonly bus: Bus,
    readonly runId: string,
    from: LogPosition,
    private readonly opts: RunLogWriterOptions = {},
  ) {
    this.position = { seq: from.seq, streamSeq: from.streamSeq, bytes: from.bytes ?? 0 };
  }

  get lastSeq(): number {
    return this.position.seq;
  }

  get bytes(): number {
    return this.position.bytes;
  }

  /** Appends in call order (calls are serialized); resolves with the event's seq once stored. */
  append(draft: RunEventDraft): Promise<number> {
    const next = this.tail.then(() => this.appendNow(draft));
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async appendNow(draft: RunEventDraft): Promise<number> {
    const seq = this.position.seq + 1;
    const event = runEventSchema.parse({
      ...draft,
      runId: this.runId,
      seq,
      at: (this.opts.now?.() ?? new Date()).toISOString(),
    }) as RunEvent;
    const bytes = Buffer.byteLength(JSON.stringify(event));
    const limit = this.opts.maxLogBytes ?? DEFAULT_MAX_RUN_LOG_BYTES;
    if (this.position.bytes + bytes > limit && !CLOSING.has(event.type)) {
      throw new SpindleError(
        'run_log_limit_exceeded',
        `run ${this.runId}: the log would exceed its limit of ${limit} bytes ` +
          `(it holds ${this.position.bytes}; ${event.type} adds ${bytes})`,
      );
    }
    const payload = await retryBusFaults(
      `storing a payload of run ${this.runId}`,
      () => encodeEvent(this.bus, event, this.opts.maxEventBytes),
      this.retry(),
    );
    const msgID = `${this.runId}:${seq}`;
    const headers = natsHeaders();
    const trace = this.opts.traceContext?.();
    if (trace) injectTraceContext(headers, trace);
    headers.set(WRITER_HEADER, this.writerId);
    const streamSeq = await retryBusFaults(
      `appending to run ${this.runId}`,
      () => this.publish(seq, msgID, payload, headers),
      this.retry(),
    );
    this.position = { seq, streamSeq, bytes: this.position.bytes + bytes };
    return seq;
  }

  /** One attempt; resolves with the stored message's stream sequence. */
  private async publish(seq: number, msgID: string, payload: string, headers: MsgHdrs): Promise<number> {
    let ack: PubAck;
    try {
      ack = await this.bus.js.publish(this.bus.names.eventSubject(this.runId), payload, {
        msgID,
        expect: { lastSubjectSequence: this.position.streamSeq },
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
    const cursor = new RunLogCursor({ lastSeq: this.position.seq, ended: false });
    const consumer = await this.bus.js.consumers.get(this.bus.names.eventsStream, {
      filter_subjects: this.bus.names.eventSubject(this.runId),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: this.position.streamSeq + 1,
    });
    const messages = await consumer.fetch({ max_messages: 1_000, expires: 2_000 });
    let lastStreamSeq = this.position.streamSeq;
    try {
      for await (const msg of messages) {
        if (msg.headers?.get('Nats-Msg-Id') === msgID && msg.headers?.get(WRITER_HEADER) === this.writerId) return msg.seq;
        const decoded = await decodeRunEvent(this.bus, msg);
        if (decoded.ok && cursor.accept(decoded.event).ok) throw lost(this.runId, seq, cause);
        lastStreamSeq = msg.seq;
        if (msg.info.pending === 0) break;
      }
    } finally {
      messages.stop();
    }
    if (lastStreamSeq === this.position.streamSeq) throw lost(this.runId, seq, cause);
    this.position = { ...this.position, streamSeq: lastStreamSeq };
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
