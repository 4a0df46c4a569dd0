import type { AnswerBody } from '@spindle/client';
import type { HumanRequest } from '@spindle/contracts';
import { UsageError } from './usage-error';

/** What `requests answer` was told on its command line (JSON values already parsed). */
export interface AnswerFlags {
  approve?: boolean;
  reject?: boolean;
  text?: string;
  data?: unknown;
  message?: string;
  /** A whole answer body, sent as it is. */
  json?: Record<string, unknown>;
  /** The person the answer is given for (`respondedBy`). */
  as?: string;
}

/**
 * The body the gateway's `respond` route takes for this request. An approval is bound to the exact
 * call the request shows (its id, name and arguments hash), which the CLI copies from the request;
 * an input answer carries what its form asks for. The gateway checks the shape again and names any
 * field at fault.
 */
export function answerBodyFor(request: Pick<HumanRequest, 'kind' | 'form' | 'call'>, flags: AnswerFlags): AnswerBody {
  const by = flags.as !== undefined ? { respondedBy: flags.as } : {};
  if (flags.approve && flags.reject) throw new UsageError('give either --approve or --reject, not both');
  if (flags.json !== undefined) {
    if (flags.approve || flags.reject || flags.text !== undefined || flags.data !== undefined || flags.message !== undefined)
      throw new UsageError('--json is the whole answer: give no other answer option with it');
    return { ...(flags.json as AnswerBody), ...by };
  }
  if (request.kind === 'approval') {
    if (!request.call) throw new UsageError('this approval request shows no tool call to decide on');
    if (!flags.approve && !flags.reject) throw new UsageError('an approval takes --approve or --reject (and --message to explain)');
    const { callId, name, argumentsHash } = request.call;
    const message = flags.message !== undefined ? { message: flags.message } : {};
    return { decision: flags.approve ? 'approve' : 'reject', callId, name, argumentsHash, ...message, ...by };
  }
  if (flags.message !== undefined) throw new UsageError('--message is for approvals; an input answer takes --text');
  const body: AnswerBody = {
    ...(flags.approve || flags.reject ? { approved: Boolean(flags.approve) } : {}),
    ...(flags.text !== undefined ? { text: flags.text } : {}),
    ...(flags.data !== undefined ? { data: flags.data } : {}),
  };
  if (Object.keys(body).length === 0)
    throw new UsageError(`this ${request.form?.kind ?? 'input'} request needs an answer: --approve, --reject, --text or --data`);
  return { ...body, ...by };
}
