import { SpindleError, type FieldIssue } from './errors';
import { describeIssues, zodFieldIssues } from './field-issues';
import type { z } from 'zod';

/** Validates a request part; a failure is `validation_failed` naming every bad field. */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown, where = ''): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  return fail(zodFieldIssues(result.error.issues, { root: where, whole: '(body)' }));
}

function fail(issues: FieldIssue[]): never {
  throw new SpindleError('validation_failed', `invalid request: ${describeIssues(issues)}`, { issues });
}
