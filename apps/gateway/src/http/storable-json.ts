import { SpindleError } from '@spindle/contracts';

/**
 * Refuses a value Postgres `jsonb` cannot store: a U+0000 anywhere in a string or key (JSON
 * allows it as `\u0000`; `jsonb` does not). For what the gateway itself stores in its catalogs,
 * where it would otherwise fail as a 500 from the database.
 */
export function refuseNulCharacters(value: unknown, field = '(body)'): void {
  // JSON.stringify writes U+0000 as the escape `\u0000`; a literal backslash before `u0000` is
  // written doubled, which the pattern tells apart (an even run of backslashes before the escape).
  const text = JSON.stringify(value);
  if (text !== undefined && /(?<!\\)(\\\\)*\\u0000/.test(text)) {
    throw new SpindleError('validation_failed', `${field}: a string contains the character U+0000, which cannot be stored`, {
      issues: [{ field, message: 'contains U+0000' }],
    });
  }
  // JSON.stringify escapes only a lone surrogate (half of a pair), which `jsonb` refuses too.
  if (text !== undefined && /(?<!\\)(\\\\)*\\ud[89a-f][0-9a-f]{2}/i.test(text)) {
    throw new SpindleError('validation_failed', `${field}: a string holds half of a UTF-16 surrogate pair, which cannot be stored`, {
      issues: [{ field, message: 'contains a lone surrogate' }],
    });
  }
}
