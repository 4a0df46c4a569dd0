import { z } from 'zod';
import { ErrorCodes, type ErrorCode } from '../errors';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const errorCodes = Object.keys(ErrorCodes) as [ErrorCode, ...ErrorCode[]];

/** One field-level problem, naming the node when the field belongs to one (`FieldIssue`). */
export const fieldIssueSchema = z.object({
  field: z
    .string()
    .describe('The field at fault: names joined by `.`, array indexes in brackets (`nodes[2].prompt`), or `(body)` for the whole body.'),
  message: z.string(),
  node: z.string().optional(),
});

/** RFC 9457 problem details: every refusal's body. Clients classify by `code`. */
export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int().min(400).max(599),
  code: z.enum(errorCodes),
  detail: z.string(),
  /** The request's URL, when there was a request to speak of. */
  instance: z.string().optional(),
  /** Every bad field, for `validation_failed` and its kin. */
  errors: z.array(fieldIssueSchema).optional(),
});
export type Problem = z.infer<typeof problemSchema>;
