import { z } from 'zod';
import { MAX_VERSION } from '../http/decimal-integer';

/** `POST /v1/runs/{id}/requests/{requestId}/respond`: an input answer or an approval decision. */
export const answerBodySchema = z.strictObject({
  // input requests (which fields depend on the form)
  approved: z.boolean().optional(),
  text: z.string().max(100_000).optional(),
  data: z.unknown().optional(),
  // approval requests: the decision, bound to the exact call that was shown
  decision: z.enum(['approve', 'reject']).optional(),
  callId: z.string().min(1).max(200).optional(),
  name: z.string().min(1).max(200).optional(),
  argumentsHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be the sha256 hex of the call arguments, as shown in the request')
    .optional(),
  message: z.string().min(1).max(10_000).optional(),
  // either: the person a key's client answers for (recorded as `answeredBy.onBehalfOf`, not verified)
  respondedBy: z.string().min(1).max(200).optional(),
  /** Continue the run on this catalog version of its workflow (its graph structure must match). */
  definitionVersion: z.number().int().min(1).max(MAX_VERSION).optional(),
});
export type AnswerBody = z.infer<typeof answerBodySchema>;
