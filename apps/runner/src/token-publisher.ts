import { publishTokenDelta, type Bus } from '@spindle/bus';
import type { TokenDelta } from '@spindle/contracts';
import type { TokenSink } from '@spindle/engine';
import { secretMasker } from '@spindle/telemetry';

interface Pending {
  nodeId: string;
  afterSeq: number;
  text: string;
  index: number;
  timer?: NodeJS.Timeout;
}

/**
 * Token deltas go out on core NATS, coalesced: a span's chunks are joined until `maxChars`
 * or `maxDelayMs`, so a fast model does not cost one message per token. Not durable by design:
 * the log keeps the full text on `model.completed`.
 */
export class TokenPublisher implements TokenSink {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly bus: Bus,
    private readonly runId: string,
    private readonly opts = { maxChars: 64, maxDelayMs: 25 },
  ) {}

  push(delta: { nodeId: string; spanId: string; afterSeq: number; text: string }): void {
    const entry = this.pending.get(delta.spanId) ?? { nodeId: delta.nodeId, afterSeq: delta.afterSeq, text: '', index: 0 };
    entry.text += delta.text;
    this.pending.set(delta.spanId, entry);
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
    };
    entry.text = '';
    publishTokenDelta(this.bus, message);
  }

  close(): void {
    for (const spanId of this.pending.keys()) this.flush(spanId);
    this.pending.clear();
  }
}
