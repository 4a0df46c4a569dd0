import { isTerminalEvent, type RunEvent } from '@spindle/contracts';

export type InvariantBreach = 'duplicate_seq' | 'seq_gap' | 'after_terminal';

/** Where a reader stands in one run's log: the last seq it accepted, and whether that ended the run. */
export interface LogCursorState {
  lastSeq: number;
  ended: boolean;
}

/**
 * The log's invariants as a reader checks them, event by event: seq runs 1, 2, 3… with no gap
 * and no repeat, and nothing follows the one terminal event. Writers guarantee this; a message
 * that breaks it did not come from a writer (or was forged) and is skipped — never served as
 * truth, and never a reason to fail the reads of the good events around it.
 */
export class RunLogCursor {
  private state: LogCursorState;

  constructor(from: LogCursorState = { lastSeq: 0, ended: false }) {
    this.state = { ...from };
  }

  get lastSeq(): number {
    return this.state.lastSeq;
  }

  get ended(): boolean {
    return this.state.ended;
  }

  /** Accepts the event (and moves on) or says which invariant it breaks (and stays). */
  accept(event: Pick<RunEvent, 'seq' | 'type'>): { ok: true } | { ok: false; breach: InvariantBreach; reason: string } {
    if (event.seq <= this.state.lastSeq)
      return {
        ok: false,
        breach: 'duplicate_seq',
        reason: `seq ${event.seq} repeats an earlier event (the log is at ${this.state.lastSeq})`,
      };
    if (this.state.ended) return { ok: false, breach: 'after_terminal', reason: `seq ${event.seq} follows the run's terminal event` };
    if (event.seq !== this.state.lastSeq + 1)
      return { ok: false, breach: 'seq_gap', reason: `seq ${event.seq} leaves a gap after ${this.state.lastSeq}` };
    this.state = { lastSeq: event.seq, ended: isTerminalEvent(event) };
    return { ok: true };
  }
}
