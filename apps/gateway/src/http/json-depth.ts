const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACKET = 0x5d; // ]
const OPEN_BRACE = 0x7b; // {
const CLOSE_BRACE = 0x7d; // }

/**
 * Whether JSON text nests arrays and objects more than `limit` levels deep (`{}` and `[1]` are one
 * level). One pass over the characters with a counter, no recursion, so it is safe on any input
 * and runs before `JSON.parse`: recursive code after the parser (zod, canonical JSON, JSON
 * Schema) would otherwise overflow the stack on a body that is small in bytes but deep.
 * Brackets inside strings do not count; an escaped quote does not end a string. Text that is not
 * JSON at all is answered as well as it can be and left to the parser to refuse.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH)
        i++; // the escaped character cannot end the string
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}
