import type { FieldIssue, InputForm } from '@spindle/contracts';
import { compileJsonSchema } from '../definition/json-schema';

export type AnswerCheck = { ok: true; answer: Record<string, unknown> } | { ok: false; issues: FieldIssue[] };

/**
 * Checks a person's answer against the form it answers, naming the field that is wrong:
 * `boolean` → `{ approved }`, `text` → `{ text }`, `json` → `{ data }` (validated against the
 * form's schema), `plan_review` → `{ approved: true }` or `{ approved: false, text }` (the revision).
 * Any answer may carry a `comment` (a note kept with the decision); a plan approved with a `text`
 * keeps that text as its comment rather than dropping it. Only the form's fields are kept.
 */
export function checkHumanAnswer(form: InputForm, body: Record<string, unknown>): AnswerCheck {
  const comment = body.comment;
  if (comment !== undefined && (typeof comment !== 'string' || comment.length === 0 || comment.length > 10_000))
    return { ok: false, issues: [{ field: 'comment', message: 'a comment is a non-empty text (at most 10,000 characters)' }] };
  const checked = formAnswer(form, body);
  if (!checked.ok || comment === undefined) return checked;
  return { ok: true, answer: { ...checked.answer, comment } };
}

function formAnswer(form: InputForm, body: Record<string, unknown>): AnswerCheck {
  const issue = (field: string, message: string): AnswerCheck => ({ ok: false, issues: [{ field, message }] });
  switch (form.kind) {
    case 'boolean':
      return typeof body.approved === 'boolean'
        ? { ok: true, answer: { approved: body.approved } }
        : issue('approved', 'a boolean form is answered with approved: true or false');
    case 'text':
      return typeof body.text === 'string' && body.text.length > 0 && body.text.length <= 100_000
        ? { ok: true, answer: { text: body.text } }
        : issue('text', 'a text form is answered with a non-empty text (at most 100,000 characters)');
    case 'json': {
      if (!('data' in body)) return issue('data', 'a json form is answered with data');
      const checked = compileJsonSchema(form.schema ?? {}, 'data')(body.data);
      return checked.ok ? { ok: true, answer: { data: checked.value } } : { ok: false, issues: checked.issues };
    }
    case 'plan_review':
      if (typeof body.approved !== 'boolean') return issue('approved', 'a plan review is answered with approved: true or false');
      if (body.approved)
        return typeof body.text === 'string' && body.text.length > 0 && body.comment === undefined
          ? { ok: true, answer: { approved: true, comment: body.text } }
          : { ok: true, answer: { approved: true } };
      return typeof body.text === 'string' && body.text.length > 0
        ? { ok: true, answer: { approved: false, text: body.text } }
        : issue('text', 'a rejected plan needs the revision in text');
  }
}
