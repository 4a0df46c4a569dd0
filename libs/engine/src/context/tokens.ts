import type { ChatMessage } from '../ports';

type Encoding = typeof import('gpt-tokenizer/encoding/o200k_base');

/**
 * One encoding for every model: o200k_base, the tokenizer of OpenAI's current models. Anthropic's
 * tokenizer is not published; o200k_base is a close, deterministic stand-in, and one encoding
 * keeps the count of a text the same wherever it is made (prompt budgets, knowledge-base chunks).
 */
export const TOKEN_ENCODING = 'o200k_base';

let encoding: Encoding | undefined;
/**
 * Loaded on first use: the ranks are 2.4 MB of JavaScript (~1.5 s to load), which only a process
 * that counts tokens should pay for (not the gateway, nor every spec importing the engine).
 */
function tokenizer(): Encoding {
  // A plain require, so the load waits for the first count (an import would load at startup).
  encoding ??= require('gpt-tokenizer/encoding/o200k_base') as Encoding;
  return encoding;
}

/** Tokens of a text in o200k_base (special-token strings in it count as plain text). */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return encodeText(text).length;
}

/** Texts this long are worth remembering the encoding of: an agent's loop fits the same large tool result every turn. */
const CACHED_TEXT_CHARS = 4_096;
const CACHED_TEXTS = 16;
const recent = new Map<string, readonly number[]>();

/** The text's tokens, for cutting on a token boundary (shared: do not modify). */
export function encodeText(text: string): readonly number[] {
  const known = recent.get(text);
  if (known) return known;
  const tokens = tokenizer().encode(text, { allowedSpecial: new Set(), disallowedSpecial: new Set() });
  if (text.length >= CACHED_TEXT_CHARS) {
    const oldest = recent.size >= CACHED_TEXTS ? recent.keys().next().value : undefined;
    if (oldest !== undefined) recent.delete(oldest);
    recent.set(text, tokens);
  }
  return tokens;
}

export function decodeTokens(tokens: readonly number[]): string {
  return tokenizer().decode(tokens);
}

/**
 * The chat format's framing (OpenAI's cookbook count): every message costs 3 tokens besides its
 * content, and the reply is primed with 3 more.
 */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_REPLY_PRIMING = 3;
/**
 * Files are not tokenized here (the bytes are not in the engine): an image counts what OpenAI bills
 * a 1024×1024 high-detail image (85 + 4 × 170), any other file a flat 1,500 tokens (about a page).
 */
export const IMAGE_ATTACHMENT_TOKENS = 765;
export const FILE_ATTACHMENT_TOKENS = 1_500;

/** A message's tokens as the model receives it: framing, content, tool calls and attachments. */
export function messageTokens(message: ChatMessage): number {
  let tokens = TOKENS_PER_MESSAGE + countTokens(message.content);
  if (message.role === 'assistant')
    for (const call of message.toolCalls ?? []) tokens += countTokens(call.name) + countTokens(JSON.stringify(call.arguments));
  if (message.role === 'tool') tokens += countTokens(message.toolName);
  if (message.role !== 'assistant')
    for (const file of message.attachments ?? [])
      tokens += file.mediaType.startsWith('image/') ? IMAGE_ATTACHMENT_TOKENS : FILE_ATTACHMENT_TOKENS;
  return tokens;
}

/** What a whole request's prompt counts: the system prompt as one more message, and the reply's priming. */
export function promptTokens(system: string | undefined, messages: readonly ChatMessage[]): number {
  const systemTokens = system ? TOKENS_PER_MESSAGE + countTokens(system) : 0;
  return messages.reduce((sum, m) => sum + messageTokens(m), systemTokens + TOKENS_REPLY_PRIMING);
}
