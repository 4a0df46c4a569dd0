import type { RunEventOf, TokenDelta, TokenPart } from '@spindle/contracts';

/**
 * A model call's output as a protocol streams it: segments of text or reasoning that open, grow
 * and close. A segment's id is the call's span id (text) or `<span id>:reasoning`; a part that
 * opens again after the other one (reasoning between pieces of text) gets `:<n>` after it.
 */
export type TextPiece =
  | { kind: 'start'; id: string; part: TokenPart }
  | { kind: 'delta'; id: string; part: TokenPart; delta: string }
  | { kind: 'end'; id: string; part: TokenPart };

/** The order a call's remainder is said in at its end: reasoning comes before the answer. */
const PARTS: readonly TokenPart[] = ['reasoning', 'text'];
/** Tokens held for a call the log has not opened yet; more means the log stalled, and the log will say it all. */
const MAX_WAITING = 10_000;

interface PartStream {
  said: string;
  segments: number;
  open: boolean;
}

interface Call {
  spanId: string;
  nextIndex: number;
  /** A chunk went missing (lost, or the reader joined mid-call): the rest comes from the log at the call's end. */
  broken: boolean;
  parts: Map<TokenPart, PartStream>;
}

/**
 * Merges a run's live token deltas (core NATS, at most once) with its log (where
 * `model.completed` holds the whole text): tokens stream while the call runs, in order and
 * without gaps, and the call's end says whatever they did not. So a reader sees exactly the
 * log's text and reasoning whether it saw every token, some, or none. Pure: the gateway feeds it.
 */
export class ModelTextStreams {
  /** The highest `model.*` seq seen: a token of a call at or below it that is not open is late and dropped. */
  private position = 0;
  private readonly calls = new Map<number, Call>();
  private readonly seqOfSpan = new Map<string, number>();
  private waiting: TokenDelta[] = [];

  opened(e: RunEventOf<'model.started'>): TextPiece[] {
    this.position = Math.max(this.position, e.seq);
    this.calls.set(e.seq, { spanId: e.spanId, nextIndex: 0, broken: false, parts: new Map() });
    this.seqOfSpan.set(e.spanId, e.seq);
    const mine = this.waiting.filter((t) => t.callSeq === e.seq).sort((a, b) => a.callIndex! - b.callIndex!);
    this.waiting = this.waiting.filter((t) => t.callSeq! > this.position);
    return mine.flatMap((t) => this.token(t));
  }

  completed(e: RunEventOf<'model.completed'>): TextPiece[] {
    return this.close(e.spanId, e.seq, { reasoning: e.data.reasoning ?? '', text: e.data.text });
  }

  /** A failed call ends what it streamed; the log has nothing more to say of it. */
  failed(e: RunEventOf<'model.failed'>): TextPiece[] {
    return this.close(e.spanId, e.seq, undefined);
  }

  token(t: TokenDelta): TextPiece[] {
    // A runner that does not number calls: its text comes whole at the call's end.
    if (t.callSeq === undefined || t.callIndex === undefined) return [];
    const call = this.calls.get(t.callSeq);
    if (!call) {
      if (t.callSeq > this.position && this.waiting.length < MAX_WAITING) this.waiting.push(t);
      return [];
    }
    if (call.broken || t.callIndex < call.nextIndex) return [];
    if (t.callIndex > call.nextIndex) {
      call.broken = true;
      return [];
    }
    call.nextIndex++;
    return this.say(call, t.part ?? 'text', t.delta);
  }

  private close(spanId: string, seq: number, whole: Record<TokenPart, string> | undefined): TextPiece[] {
    this.position = Math.max(this.position, seq);
    const callSeq = this.seqOfSpan.get(spanId);
    const call = (callSeq !== undefined && this.calls.get(callSeq)) || { spanId, nextIndex: 0, broken: true, parts: new Map() };
    const pieces: TextPiece[] = [];
    // The part still open goes on first, so a message the tokens began is not split in two.
    const order = [...PARTS].sort((a, b) => Number(call.parts.get(b)?.open ?? false) - Number(call.parts.get(a)?.open ?? false));
    for (const part of whole ? order : []) {
      const said = call.parts.get(part)?.said ?? '';
      // The tokens said the log's text up to where they stopped. Where they differ (a secret split
      // across two chunks is masked in the log, not in the chunks), what was said stands, nothing is added.
      const rest = whole![part].startsWith(said) ? whole![part].slice(said.length) : '';
      if (rest !== '') pieces.push(...this.say(call, part, rest));
    }
    for (const part of PARTS) pieces.push(...this.end(call, part));
    if (callSeq !== undefined) this.calls.delete(callSeq);
    this.seqOfSpan.delete(spanId);
    return pieces;
  }

  private say(call: Call, part: TokenPart, delta: string): TextPiece[] {
    const pieces = PARTS.filter((other) => other !== part).flatMap((other) => this.end(call, other));
    const stream = call.parts.get(part) ?? { said: '', segments: 0, open: false };
    call.parts.set(part, stream);
    const id = segmentId(call.spanId, part, stream.open ? stream.segments - 1 : stream.segments);
    if (!stream.open) {
      stream.open = true;
      stream.segments++;
      pieces.push({ kind: 'start', id, part });
    }
    stream.said += delta;
    pieces.push({ kind: 'delta', id, part, delta });
    return pieces;
  }

  private end(call: Call, part: TokenPart): TextPiece[] {
    const stream = call.parts.get(part);
    if (!stream?.open) return [];
    stream.open = false;
    return [{ kind: 'end', id: segmentId(call.spanId, part, stream.segments - 1), part }];
  }
}

function segmentId(spanId: string, part: TokenPart, segment: number): string {
  const base = part === 'text' ? spanId : `${spanId}:reasoning`;
  return segment === 0 ? base : `${base}:${segment}`;
}
