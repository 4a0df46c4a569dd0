import type { RunEvent, TokenDelta } from '@spindle/contracts';

/**
 * Orders token deltas (core NATS) against the log (JetStream), which travel separately: a
 * node's tokens go out only after its `node.started` was written and never after its
 * `node.completed` (the completed event carries the full text).
 */
export class TokenRelay {
  private position = 0;
  private readonly closedSpans = new Set<string>();
  private readonly waiting = new Map<string, TokenDelta[]>();

  constructor(
    private readonly send: (token: TokenDelta) => void,
    startAfterSeq: number,
  ) {
    this.position = startAfterSeq;
  }

  /** Call after writing each log event. */
  afterEvent(event: RunEvent): void {
    this.position = event.seq;
    if (event.type === 'node.completed' || event.type === 'node.failed') {
      this.closedSpans.add(event.spanId);
      this.waiting.delete(event.spanId);
      return;
    }
    if (event.type === 'node.started') {
      const queued = this.waiting.get(event.spanId) ?? [];
      this.waiting.delete(event.spanId);
      for (const token of queued.sort((a, b) => a.index - b.index)) this.send(token);
    }
  }

  onToken(token: TokenDelta): void {
    if (this.closedSpans.has(token.spanId)) return;
    if (this.position >= token.afterSeq) return this.send(token);
    this.waiting.set(token.spanId, [...(this.waiting.get(token.spanId) ?? []), token]);
  }
}
