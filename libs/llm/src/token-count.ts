import { decode, encode } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Tokens as OpenAI's o200k_base tokenizer counts them (GPT-4o and later). Other providers'
 * tokenizers differ by a few percent; one real tokenizer everywhere keeps budgets and chunk sizes
 * comparable across models.
 */
export function countTokens(text: string): number {
  return encode(text).length;
}

export function encodeTokens(text: string): number[] {
  return encode(text);
}

export function decodeTokens(tokens: readonly number[]): string {
  return decode(tokens);
}
