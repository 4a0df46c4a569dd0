import { JetStreamApiCodes } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { runEventSchema, SpindleError, type RunEvent, type RunEventDraft } from '@spindle/contracts';
import type { Bus } from './bus-connection';
import { encodeEvent } from './run-payloads';

/** Where a run's log ends: its last `seq` and that event's stream sequence. */
export interface LogPosition {
  seq: number;
  streamSeq: number;
}

export const EMPTY_LOG: LogPosition = { seq: 0, streamSeq: 0 };

/**
 * The only way events enter a run's log. Each append names the next `seq` (`Nats-Msg-Id =
 * <runId>:<seq>`) and the stream sequence it expects the run's subject to end at, so two
 * writers can never interleave one log: the loser gets `run_lost` and must stop.
 */
export class RunLogWriter {
  private position: LogPosition;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly bus: Bus,
    readonly runId: string,
    from: LogPosition,
    private readonly opts: { now?: () => Date; headers?: () => MsgHdrs | undefined; maxEventBytes?: number } = {},
  ) {
    this.position = { ...from };
  }

  get lastSeq(): number {
    return this.position.seq;
  }

  /** Appends in call order (calls are serialized); resolves with the event's seq once stored. */
  append(draft: RunEventDraft): Promise<number> {
    const next = this.tail.then(() => this.appendNow(draft));
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async appendNow(draft: RunEventDraft): Promise<number> {
    const seq = this.position.seq + 1;
    const event = runEventSchema.parse({ ...draft, runId: this.runId, seq, at: (this.opts.now?.() ?? new Date()).toISOString() }) as RunEvent;
    const headers = this.opts.headers?.() ?? natsHeaders();
    let ack;
    try {
      ack = await this.bus.js.publish(this.bus.names.eventSubject(this.runId), await encodeEvent(this.bus, event, this.opts.maxEventBytes), {
        msgID: `${this.runId}:${seq}`,
        expect: { lastSubjectSequence: this.position.streamSeq },
        headers,
      });
    } catch (e) {
      if (isWrongLastSequence(e)) throw lost(this.runId, seq, e);
      throw e;
    }
    // A duplicate means another writer already stored this seq.
    if (ack.duplicate) throw lost(this.runId, seq);
    this.position = { seq, streamSeq: ack.seq };
    return seq;
  }
}

function isWrongLastSequence(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === JetStreamApiCodes.StreamWrongLastSequence || /wrong last sequence/i.test(String((e as Error)?.message));
}

function lost(runId: string, seq: number, cause?: unknown): SpindleError {
  return new SpindleError('run_lost', `run ${runId}: another writer appended seq ${seq} first`, { cause });
}
