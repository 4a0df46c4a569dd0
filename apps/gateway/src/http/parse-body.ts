import { SpindleError, type FieldIssue } from '@spindle/contracts';
import type { z } from 'zod';

/** Validates a request part; a failure is `validation_failed` naming every bad field. */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown, where = ''): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues: FieldIssue[] = result.error.issues.map((i) => {
    const field = [where, ...i.path.map(String)].filter(Boolean).join('.') || '(body)';
    const message = i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}` : i.message;
    return { field, message };
  });
  return fail(issues);
}

function fail(issues: FieldIssue[]): never {
  throw new SpindleError('validation_failed', `invalid request: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, { issues });
}
