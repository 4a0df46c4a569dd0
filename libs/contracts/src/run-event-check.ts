import { describeIssues, zodFieldIssues } from './field-issues';
import { runEventSchema, type RunEvent } from './run-events';

export type RunEventCheck = { ok: true; event: RunEvent } | { ok: false; reason: string };

/**
 * The one check of a parsed JSON value against the run event schema, shared by every reader of
 * events (the bus decoder, the HTTP client). Never throws: the reason names the first few fields
 * at fault.
 */
export function checkRunEvent(value: unknown): RunEventCheck {
  const parsed = runEventSchema.safeParse(value);
  if (parsed.success) return { ok: true, event: parsed.data as RunEvent };
  const issues = zodFieldIssues(parsed.error.issues.slice(0, 5), { whole: '(root)' });
  return { ok: false, reason: `not a run event: ${describeIssues(issues)}` };
}
