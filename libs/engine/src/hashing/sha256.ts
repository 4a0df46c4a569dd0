import { sha256 } from 'js-sha256';

const utf8 = new TextEncoder();

/**
 * SHA-256 of the text's UTF-8 bytes, in hex: the engine's one hash, the same in Node and in a
 * browser (the console reads logged hashes). js-sha256 hands the bytes to node:crypto under Node
 * and hashes them in JavaScript elsewhere; the text is encoded here so a lone surrogate becomes
 * U+FFFD on both paths, as node:crypto encodes it.
 */
export function sha256Hex(text: string): string {
  return sha256(utf8.encode(text));
}
