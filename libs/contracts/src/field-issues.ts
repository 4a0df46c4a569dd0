import type { FieldIssue } from './errors';

/** What the formatter reads of a zod issue (zod 3 and 4 alike: plugins may bundle either). */
export interface ZodLikeIssue {
  path?: readonly PropertyKey[];
  message: string;
  code?: string;
  keys?: readonly string[];
  issues?: readonly { message: string }[];
}

/** What the formatter reads of an Ajv error. */
export interface AjvLikeError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: unknown;
}

/** Where the issues sit: `root` prefixes every field; `whole` names the value itself (e.g. `(body)`). */
export interface IssuePlace {
  root?: string;
  whole: string;
}

/**
 * The one field-path format of every `FieldIssue` (the problem+json `errors[].field` contract):
 * `('parameters', ['items', 0, 'id'])` → `parameters.items[0].id`; `('', [])` → `''`.
 */
export function fieldPath(path: readonly PropertyKey[], root = ''): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), root);
}

/** Zod issues as field issues; unknown keys and bad record keys say which. */
export function zodFieldIssues(issues: readonly ZodLikeIssue[], place: IssuePlace): FieldIssue[] {
  return issues.map((i) => ({ field: fieldPath(i.path ?? [], place.root) || place.whole, message: zodMessage(i) }));
}

/** Ajv errors as field issues: a missing or extra property is named as the field it is about. */
export function ajvFieldIssues(errors: readonly AjvLikeError[], place: IssuePlace): FieldIssue[] {
  return errors.map((e) => {
    const path: PropertyKey[] = e.instancePath
      .split('/')
      .slice(1)
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')));
    const extra = e.params as { missingProperty?: string; additionalProperty?: string };
    const leaf = extra.missingProperty ?? extra.additionalProperty;
    if (leaf !== undefined) path.push(leaf);
    return { field: fieldPath(path, place.root) || place.whole, message: e.message ?? e.keyword };
  });
}

/** `a: m; b[0]: n`: the issues as one line of a message. */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.field}: ${i.message}`).join('; ');
}

function zodMessage(issue: ZodLikeIssue): string {
  if (issue.code === 'unrecognized_keys' && issue.keys) return `unknown field(s): ${issue.keys.join(', ')}`;
  // A record key that fails its rule: say which rule, not just "invalid key".
  if (issue.code === 'invalid_key') return issue.issues?.[0]?.message ?? issue.message;
  return issue.message;
}
