import { publishTokenDelta, type Bus } from '@spindle/bus';
import type { TokenDelta, TokenPart } from '@spindle/contracts';
import type { TokenSink } from '@spindle/engine';
import { secretMasker } from '@spindle/telemetry';

interface Pending {
  nodeId: string;
  afterSeq: number;
  /** The call and the part the buffered text is of: a chunk of another flushes it first. */
  callSeq: number;
  part: TokenPart;
  text: string;
  index: number;
  callIndex: number;
  timer?: NodeJS.Timeout;
}

type Delta = Parameters<TokenSink['push']>[0];

/**
 * Token deltas go out on core NATS, coalesced: a span's chunks of one call and part are joined
 * until `maxChars` or `maxDelayMs`, so a fast model does not cost one message per token. Not
 * durable by design: the log keeps the full text (and reasoning) on `model.completed`.
 */
export class TokenPublisher implements TokenSink {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly bus: Bus,
    private readonly runId: string,
    private readonly opts = { maxChars: 64, maxDelayMs: 25 },
  ) {}

  push(delta: Delta): void {
    const entry = this.entryFor(delta);
    entry.text += delta.text;
    if (entry.text.length >= this.opts.maxChars) this.flush(delta.spanId);
    else entry.timer ??= setTimeout(() => this.flush(delta.spanId), this.opts.maxDelayMs);
  }

  flush(spanId: string): void {
    const entry = this.pending.get(spanId);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    if (entry.text === '') return;
    const message: TokenDelta = {
      runId: this.runId,
      nodeId: entry.nodeId,
      spanId,
      afterSeq: entry.afterSeq,
      index: entry.index++,
      // Masked like the log is; a secret that straddles two chunks is masked in the log's text, not here.
      delta: secretMasker().maskText(entry.text),
      ...(entry.part === 'reasoning' && { part: entry.part }),
      callSeq: entry.callSeq,
      callIndex: entry.callIndex++,
    };
    entry.text = '';
    publishTokenDelta(this.bus, message);
  }

  close(): void {
    for (const spanId of this.pending.keys()) this.flush(spanId);
    this.pending.clear();
  }

  /** The span's buffer for this call and part: what another call or part left is sent first, and a new call counts from 0. */
  private entryFor(delta: Delta): Pending {
    const entry = this.pending.get(delta.spanId);
    if (!entry) {
      const fresh = {
        nodeId: delta.nodeId,
        afterSeq: delta.afterSeq,
        callSeq: delta.callSeq,
        part: delta.part,
        text: '',
        index: 0,
        callIndex: 0,
      };
      this.pending.set(delta.spanId, fresh);
      return fresh;
    }
    if (entry.callSeq !== delta.callSeq || entry.part !== delta.part) this.flush(delta.spanId);
    if (entry.callSeq !== delta.callSeq) entry.callIndex = 0;
    Object.assign(entry, { callSeq: delta.callSeq, part: delta.part, afterSeq: delta.afterSeq });
    return entry;
  }
}
