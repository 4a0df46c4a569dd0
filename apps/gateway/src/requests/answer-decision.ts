import {
  describeIssues,
  SpindleError,
  type Actor,
  type AnswerBody,
  type FieldIssue,
  type RunEvent,
  type RunEventDraft,
} from '@spindle/contracts';
import { canonicalJson } from '@spindle/contracts';
import { checkHumanAnswer } from '@spindle/engine';
import { requestsInLog, runPhase, type AnswerEvent, type RequestInLog } from '@spindle/projections';

/** A catalog version the answer asks the run to continue with, already checked against the run's graph. */
export interface DefinitionUpgrade {
  definitionVersion: number;
  definition: unknown;
}

/**
 * Decides, from the run's log alone, what answering `requestId` with `body` appends: the answer
 * event, or nothing when the same answer was already recorded (single mode). Refusals, in the
 * order a client can act on them: unknown request (404), a request already closed or answered
 * differently (409), a wrong shape (400), a run that is not waiting (409), an approval whose
 * binding is not the pending call's (409), a request past its `expiresAt` (409 `request_closed`:
 * the run goes on along its timeout path, whether or not the sweeper has recorded that yet).
 */
export function decideAnswer(
  events: readonly RunEvent[],
  requestId: string,
  body: AnswerBody,
  by: Actor,
  upgrade?: DefinitionUpgrade,
  now = new Date(),
): RunEventDraft | undefined {
  const request = requestsInLog(events).get(requestId);
  if (!request) throw new SpindleError('request_not_found', `run ${events[0]?.runId} has no request "${requestId}"`);
  const answer = request.kind === 'input' ? inputAnswer(request, body) : approvalAnswer(request, body);
  const earlier = request.answers[0];
  if (earlier) return repeatOf(request, earlier, answer);
  const phase = runPhase(events);
  if (phase.phase === 'ended')
    throw new SpindleError('request_closed', `request ${requestId} was closed when the run ended (${phase.terminal.type})`);
  const { requested } = request;
  const { expiresAt } = requested.data;
  if (expiresAt !== undefined && Date.parse(expiresAt) <= now.getTime())
    throw new SpindleError('request_closed', `request ${requestId} expired at ${expiresAt}; the run goes on without this answer`);
  if (phase.phase !== 'waiting')
    throw new SpindleError('run_not_waiting', `run ${request.requested.runId} is not waiting (it is ${phase.phase}); answer once it waits`);
  const envelope = {
    nodeId: requested.nodeId,
    spanId: requested.spanId,
    ...(requested.parentSpanId ? { parentSpanId: requested.parentSpanId } : {}),
    path: requested.path,
    ...(requested.iteration !== undefined ? { iteration: requested.iteration } : {}),
    ...(requested.branchId !== undefined ? { branchId: requested.branchId } : {}),
  };
  // Who answered is the caller; what its client says about the person it relays is kept beside it.
  const answeredBy: Actor = body.respondedBy ? { ...by, onBehalfOf: body.respondedBy } : by;
  const upgraded = upgrade ? { definitionVersion: upgrade.definitionVersion, definition: upgrade.definition } : {};
  if (request.kind === 'input')
    return { type: 'input.answered', ...envelope, data: { requestId, answer: answer as Record<string, unknown>, answeredBy, ...upgraded } };
  return { type: 'approval.resolved', ...envelope, data: { requestId, ...(answer as ApprovalAnswer), answeredBy, ...upgraded } };
}

type ApprovalAnswer = { decision: 'approved' | 'rejected'; callId: string; name: string; argumentsHash: string; message?: string };

function inputAnswer(request: RequestInLog, body: AnswerBody): Record<string, unknown> {
  if (request.requested.type !== 'input.requested') throw new Error('unreachable');
  const foreign = (['decision', 'callId', 'name', 'argumentsHash', 'message'] as const).filter((k) => body[k] !== undefined);
  if (foreign.length) invalid(foreign.map((field) => ({ field, message: 'only approval requests take this field' })));
  const { respondedBy: _by, definitionVersion: _v, ...rest } = body;
  const checked = checkHumanAnswer(request.requested.data.form, rest);
  if (!checked.ok) invalid(checked.issues);
  return checked.answer;
}

function approvalAnswer(request: RequestInLog, body: AnswerBody): ApprovalAnswer {
  if (request.requested.type !== 'approval.requested') throw new Error('unreachable');
  const missing = (['decision', 'callId', 'name', 'argumentsHash'] as const).filter((k) => body[k] === undefined);
  if (missing.length)
    invalid(
      missing.map((field) => ({
        field,
        message: 'required: an approval names its decision and the exact call (callId, name, argumentsHash) it approves',
      })),
    );
  const foreign = (['approved', 'text', 'data', 'comment'] as const).filter((k) => body[k] !== undefined);
  if (foreign.length) invalid(foreign.map((field) => ({ field, message: 'only input requests take this field' })));
  const call = request.requested.data.call;
  const mismatched = (['callId', 'name', 'argumentsHash'] as const).filter((k) => body[k] !== call[k]);
  if (mismatched.length) {
    throw new SpindleError(
      'approval_binding_mismatch',
      `this answer is not for the pending call: ${mismatched.join(', ')} differ from what request ${request.requestId} shows`,
      {
        issues: mismatched.map((field) => ({ field, message: `the pending call has ${field} "${call[field]}"` })),
      },
    );
  }
  return {
    decision: body.decision === 'approve' ? 'approved' : 'rejected',
    callId: call.callId,
    name: call.name,
    argumentsHash: call.argumentsHash,
    ...(body.message ? { message: body.message } : {}),
  };
}

/** A second answer: in single mode the same one again is accepted and changes nothing. */
function repeatOf(request: RequestInLog, earlier: AnswerEvent, answer: unknown): undefined {
  if (earlier.data.timedOut) throw new SpindleError('request_closed', `request ${request.requestId} expired before it was answered`);
  if (request.requested.data.mode === 'multiple')
    throw new SpindleError('request_closed', `request ${request.requestId} was already answered; it takes one answer`);
  const recorded =
    earlier.type === 'input.answered'
      ? earlier.data.answer
      : {
          decision: earlier.data.decision,
          callId: earlier.data.callId,
          name: earlier.data.name,
          argumentsHash: earlier.data.argumentsHash,
          ...(earlier.data.message ? { message: earlier.data.message } : {}),
        };
  if (canonicalJson(recorded) !== canonicalJson(answer))
    throw new SpindleError('request_already_answered', `request ${request.requestId} was already answered differently`);
  return undefined;
}

function invalid(issues: FieldIssue[]): never {
  throw new SpindleError('validation_failed', `invalid answer: ${describeIssues(issues)}`, { issues });
}
