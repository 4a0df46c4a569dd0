import { SpindleError, type ErrorCode } from '@spindle/contracts';
import { toErrorInfo } from '../interpreter/error-info';
import type { AttemptFailure, UserCodeVoice } from '../ports';
import { placed, type NodeContext } from './node-executor';
import { checkCustomEvent, checkUsageReport } from './user-code-reports';

/** Who speaks: a function node's code, or a tool's for one call. */
export interface UserCodeSource {
  kind: 'function' | 'tool';
  name: string;
  callId?: string;
  /** The span the events hang under: the node's for a function, the tool call's for a tool. */
  parentSpanId: string;
}

/**
 * What user code says into the log while it runs — its custom events, its reported spending and
 * its failed tries — each an instant span under `source.parentSpanId`. Appends only queue (the
 * code need not await them); `close` waits for them, and after it the code has no voice: a late
 * call from a try the runner gave up on is refused instead of landing after the node's end.
 */
export function openUserCodeChannel(ctx: NodeContext, source: UserCodeSource): UserCodeVoice & { close(): Promise<void> } {
  const { env } = ctx;
  const pending: Array<Promise<number>> = [];
  let open = true;
  const failureCode: ErrorCode = source.kind === 'function' ? 'function_failed' : 'tool_failed';
  const sourceRef = { kind: source.kind, name: source.name, ...(source.callId !== undefined ? { callId: source.callId } : {}) };
  const append = (what: string, draft: (span: ReturnType<typeof spanOf>) => Parameters<typeof env.log.append>[0]) => {
    if (!open)
      throw new SpindleError('validation_failed', `${what} after ${source.kind} "${source.name}" returned: nothing more is recorded`);
    const appended = env.log.append(draft(spanOf()));
    // Marked handled: the code may not await it; `close` surfaces a failure.
    appended.catch(() => undefined);
    pending.push(appended);
    return appended.then(() => undefined);
  };
  const spanOf = () => ({
    nodeId: ctx.nodeId,
    spanId: env.ids.spanId(),
    parentSpanId: source.parentSpanId,
    path: ctx.path,
    ...placed(ctx),
  });
  return {
    emit(name, data) {
      const event = checkCustomEvent(name, data);
      return append('emit', (span) => ({ type: 'custom', ...span, data: event }));
    },
    reportUsage(report) {
      const checked = checkUsageReport(report);
      // Counted at once: the budget check before the next node sees it, awaited or not.
      const runUsage = ctx.usage.add(checked.usage);
      return append('reportUsage', (span) => ({ type: 'usage.reported', ...span, data: { ...checked, source: sourceRef, runUsage } }));
    },
    attemptFailed({ attempt, error, retryInMs }: AttemptFailure) {
      const info = toErrorInfo(error, failureCode, () => env.ids.correlationId(), env.reportRedacted);
      return append('a failed attempt', (span) => ({
        type: 'attempt.failed',
        ...span,
        data: { ...sourceRef, attempt, error: info, retryInMs: Math.max(0, Math.round(retryInMs)) },
      }));
    },
    async close() {
      open = false;
      await Promise.all(pending);
    },
  };
}
