import { isJsonObject } from '@spindle/contracts';
import type { FormField } from '@spindle/projections';

/** The answer being written, as an object; text that is not a JSON object yet counts as empty. */
export function answerObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return isJsonObject(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * The answer's JSON text with one field set from its form control. An emptied field is left out
 * (so a required one is reported missing); a number field keeps what was typed as text when it is
 * no number, so the schema check names it.
 */
export function withFieldValue(text: string, field: FormField, raw: string | boolean): string {
  const answer = { ...answerObject(text) };
  if (raw === '') delete answer[field.name];
  else if (field.type === 'boolean') answer[field.name] = raw === true;
  else if (field.type === 'number' || field.type === 'integer') {
    const n = Number(raw);
    answer[field.name] = typeof raw === 'string' && raw.trim() !== '' && Number.isFinite(n) ? n : raw;
  } else answer[field.name] = raw;
  return JSON.stringify(answer, null, 2);
}

/** What a form control shows for the field. */
export function fieldText(text: string, field: FormField): string {
  const value = answerObject(text)[field.name];
  return value === undefined || value === null ? '' : String(value);
}
