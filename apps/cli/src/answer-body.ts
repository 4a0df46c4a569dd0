import type { AnswerBody } from '@spindle/client';
import type { HumanRequest } from '@spindle/contracts';
import { UsageError } from './usage-error';

/** What `requests answer` was told on its command line (JSON values already parsed). */
export interface AnswerFlags {
  approve?: boolean;
  reject?: boolean;
  text?: string;
  data?: unknown;
  /** A note kept with the decision (a tool approval's note to the model); `--message` is the same flag. */
  comment?: string;
  message?: string;
  /** A whole answer body, sent as it is. */
  json?: Record<string, unknown>;
  /** The person the answer is given for (`respondedBy`). */
  as?: string;
}

/** The kind of answer a request takes: a tool approval, or the form of an input. */
export type AnswerKind = 'approval' | 'boolean' | 'text' | 'json' | 'plan_review';

type AnswerFlag = 'approve' | 'reject' | 'text' | 'data';

/** The flags each kind of request is answered with; `--comment` (or `--message`) goes with any of them. */
const FLAGS: Record<AnswerKind, { takes: readonly AnswerFlag[]; hint: string }> = {
  approval: { takes: ['approve', 'reject'], hint: '--approve|--reject [--comment <note to the model>]' },
  boolean: { takes: ['approve', 'reject'], hint: '--approve|--reject [--comment <text>]' },
  plan_review: { takes: ['approve', 'reject', 'text'], hint: '--approve [--comment <text>] | --reject --text <revision>' },
  text: { takes: ['text'], hint: '--text <answer> [--comment <text>]' },
  json: { takes: ['data'], hint: '--data <json|@file.json> [--comment <text>]' },
};

/** The kind of answer a request takes (an input without a form is a yes/no question). */
export function answerKindOf(request: Pick<HumanRequest, 'kind' | 'form'>): AnswerKind {
  return request.kind === 'approval' ? 'approval' : (request.form?.kind ?? 'boolean');
}

/** The flags that answer this kind of request, as the CLI shows them in hints and refusals. */
export function answerHint(kind: AnswerKind): string {
  return FLAGS[kind].hint;
}

/**
 * The body the gateway's `respond` route takes for this request, from the flags its kind takes
 * (any other answer flag is refused, never dropped). An approval is bound to the exact call the
 * request shows (its id, name and arguments hash), which the CLI copies from the request; an input
 * answer carries what its form asks for. A comment goes with any decision: an approval's `message`,
 * an input's `comment` (a plan approved with `--text` keeps that text as its comment). The gateway
 * checks the shape again and names any field at fault.
 */
export function answerBodyFor(request: Pick<HumanRequest, 'kind' | 'form' | 'call'>, flags: AnswerFlags): AnswerBody {
  const by = flags.as !== undefined ? { respondedBy: flags.as } : {};
  if (flags.comment !== undefined && flags.message !== undefined && flags.comment !== flags.message)
    throw new UsageError('--message is the same as --comment: give one of them');
  const comment = flags.comment ?? flags.message;
  if (flags.json !== undefined) {
    const given = (['approve', 'reject', 'text', 'data'] as const).some((f) => flags[f] !== undefined) || comment !== undefined;
    if (given) throw new UsageError('--json is the whole answer: give no other answer option with it');
    return { ...(flags.json as AnswerBody), ...by };
  }
  const kind = answerKindOf(request);
  const { takes, hint } = FLAGS[kind];
  const usage = (why: string) => new UsageError(`${why}; a${kind === 'approval' ? 'n approval' : ` ${kind} request`} takes ${hint}`);
  const foreign = (['approve', 'reject', 'text', 'data'] as const).filter((f) => flags[f] !== undefined && !takes.includes(f));
  if (foreign.length) throw usage(`${foreign.map((f) => `--${f}`).join(', ')} cannot answer it`);
  if (flags.approve && flags.reject) throw usage('give either --approve or --reject, not both');
  const decided = Boolean(flags.approve || flags.reject);
  if (kind === 'approval') {
    if (!request.call) throw new UsageError('this approval request shows no tool call to decide on');
    if (!decided) throw usage('it needs a decision');
    const { callId, name, argumentsHash } = request.call;
    const message = comment !== undefined ? { message: comment } : {};
    return { decision: flags.approve ? 'approve' : 'reject', callId, name, argumentsHash, ...message, ...by };
  }
  const noted = comment !== undefined ? { comment } : {};
  switch (kind) {
    case 'boolean':
      if (!decided) throw usage('it needs a decision');
      return { approved: Boolean(flags.approve), ...noted, ...by };
    case 'plan_review':
      if (!decided) throw usage('it needs a decision');
      if (flags.approve) {
        if (flags.text !== undefined && comment !== undefined) throw usage('an approved plan takes one comment: --comment or --text');
        const remark = comment ?? flags.text;
        return { approved: true, ...(remark !== undefined ? { comment: remark } : {}), ...by };
      }
      if (flags.text === undefined) throw usage('a rejected plan needs the revision');
      return { approved: false, text: flags.text, ...noted, ...by };
    case 'text':
      if (flags.text === undefined) throw usage('it needs the answer');
      return { text: flags.text, ...noted, ...by };
    case 'json':
      if (flags.data === undefined) throw usage('it needs the answer');
      return { data: flags.data, ...noted, ...by };
  }
}
