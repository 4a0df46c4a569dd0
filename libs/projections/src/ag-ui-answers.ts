import type { OpenRequest } from './mcp-tools';

/**
 * What an AG-UI `resume` entry's payload answers its interrupt with, as `…/respond` takes it:
 * `true`/`false` approve or decline (for a tool approval, bound to the exact call the interrupt
 * showed; for a yes/no or plan-review form, its `approved`), a string is the text, an object is
 * the answer itself. Unknown or already answered requests keep the generic shape, and the answer
 * service refuses them by name.
 */
export function answerOfInterrupt(request: OpenRequest | undefined, payload: unknown): unknown {
  if (request?.kind === 'approval') return approvalAnswerOf(request, payload);
  if (typeof payload === 'boolean') return { approved: payload };
  if (typeof payload === 'string') return { text: payload };
  return payload ?? {};
}

function approvalAnswerOf(request: Extract<OpenRequest, { kind: 'approval' }>, payload: unknown): unknown {
  if (typeof payload !== 'boolean') return payload ?? {};
  const { callId, name, argumentsHash } = request.call;
  return { decision: payload ? 'approve' : 'reject', callId, name, argumentsHash };
}
