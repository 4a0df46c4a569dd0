import { countTokens, decodeTokens, encodeText as encodeTokens } from '@spindle/engine';

export interface TextChunk {
  ord: number;
  text: string;
  tokens: number;
}

export interface ChunkingOptions {
  /** Tokens per chunk at most. */
  size: number;
  /** Tokens of the previous chunk's end repeated at the start of the next. */
  overlap: number;
}

/** Coarse to fine: paragraphs, lines, sentences, words; a piece still too long is cut by tokens. */
const SEPARATORS = [/\n{2,}/, /\n/, /(?<=[.!?。])\s+/, /\s+/];

/**
 * A recursive splitter measured in real tokens: the text is split at the coarsest separator that
 * makes pieces fit, pieces are packed greedily up to `size` tokens, and each chunk after the first
 * starts with the last `overlap` tokens of the one before, so a sentence cut at a boundary is whole
 * in one of them. Blank chunks are dropped; the chunks' order is the document's.
 */
export function chunkText(text: string, options: ChunkingOptions): TextChunk[] {
  const pieces = splitToFit(text.replace(/\r\n?/g, '\n'), options.size, 0);
  const chunks: string[] = [];
  let current: string[] = [];
  let currentTokens = 0;
  for (const piece of pieces) {
    const tokens = countTokens(piece);
    if (currentTokens + tokens > options.size && current.length) {
      chunks.push(current.join(''));
      const carried = tail(chunks.at(-1)!, options.overlap);
      current = carried ? [carried] : [];
      currentTokens = carried ? countTokens(carried) : 0;
      // The overlap must leave room for the piece itself.
      if (currentTokens + tokens > options.size) {
        current = [];
        currentTokens = 0;
      }
    }
    current.push(piece);
    currentTokens += tokens;
  }
  if (current.length) chunks.push(current.join(''));
  return chunks
    .map((c) => c.trim())
    .filter((c) => c.length > 0)
    .map((c, ord) => ({ ord, text: c, tokens: countTokens(c) }));
}

/** Pieces of at most `size` tokens whose concatenation is the text (separators stay on the piece before them). */
function splitToFit(text: string, size: number, level: number): string[] {
  if (countTokens(text) <= size) return [text];
  if (level >= SEPARATORS.length) return hardSplit(text, size);
  const parts = splitKeeping(text, SEPARATORS[level]);
  if (parts.length === 1) return splitToFit(text, size, level + 1);
  return parts.flatMap((p) => splitToFit(p, size, level + 1));
}

function splitKeeping(text: string, separator: RegExp): string[] {
  const out: string[] = [];
  const re = new RegExp(separator.source, 'g');
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    out.push(text.slice(last, m.index + m[0].length));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out.filter((p) => p.length > 0);
}

function hardSplit(text: string, size: number): string[] {
  const tokens = encodeTokens(text);
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += size) out.push(decodeTokens(tokens.slice(i, i + size)));
  return out;
}

function tail(text: string, tokens: number): string {
  if (tokens <= 0) return '';
  const all = encodeTokens(text);
  return all.length <= tokens ? '' : decodeTokens(all.slice(all.length - tokens));
}
