import type { TruncationStrategy } from '@spindle/contracts';
import { countTokens, decodeTokens, encodeText } from './tokens';

export interface TruncatedText {
  text: string;
  tokensBefore: number;
  /** The kept tokens plus the marker's: what the cut text counts (the planner's arithmetic, re-applied exactly on resume). */
  tokensAfter: number;
}

/** What replaces the cut end, so the model knows the text goes on. */
export function truncationMarker(dropped: number): string {
  return ` [… truncated ${dropped} tokens]`;
}

/** Ends a sentence (or a line): the last character of a kept prefix under `sentence`. */
const SENTENCE_END = /[.!?。][)"'\]]?\s*$|\n\s*$/;

/**
 * The longest cut of `text` that counts at most `budget` tokens with its marker: `hard` keeps a
 * token prefix, `sentence` the longest such prefix that ends a sentence (a hard cut when none
 * does). The kept length is the largest one that fits, so cutting again to the result's own
 * `tokensAfter` gives the same text: how a resumed run re-applies a recorded cut. A budget below
 * the marker alone keeps nothing but the marker.
 */
export function truncateText(text: string, budget: number, strategy: TruncationStrategy): TruncatedText {
  const tokens = encodeText(text);
  const before = tokens.length;
  if (before <= budget) return { text, tokensBefore: before, tokensAfter: before };
  const cost = (kept: number) => kept + countTokens(truncationMarker(before - kept));
  let kept = largestFitting(before - 1, (k) => cost(k) <= budget);
  if (strategy === 'sentence') kept = sentencePrefix(tokens, kept);
  return {
    text: decodeTokens(tokens.slice(0, kept)).replace(/\uFFFD+$/, '') + truncationMarker(before - kept),
    tokensBefore: before,
    tokensAfter: cost(kept),
  };
}

/** The largest k in [0, max] with `fits(k)` (fits is monotone: true up to a point); 0 when none fits. */
function largestFitting(max: number, fits: (k: number) => boolean): number {
  let low = 0;
  let high = max;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** The longest prefix of at most `kept` tokens that ends a sentence, or `kept` itself when none does. */
function sentencePrefix(tokens: readonly number[], kept: number): number {
  let tail = '';
  for (let k = kept; k > 0; k--) {
    // A sentence end can straddle tokens (`."`, `.\n`): look at the last few together.
    tail = decodeTokens(tokens.slice(Math.max(0, k - 3), k));
    if (SENTENCE_END.test(tail)) return k;
  }
  return kept;
}
