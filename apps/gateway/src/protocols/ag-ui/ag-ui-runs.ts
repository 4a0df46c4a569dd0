import { type RunCanceller } from '@spindle/control-plane';
import type { Context } from '@opentelemetry/api';
import type { Bus } from '@spindle/bus';
import {
  agUiRunInputSchema,
  answerBodySchema,
  canonicalJson,
  describeIssues,
  isJsonObject,
  isSpindleError,
  protocolMessageOf,
  SpindleError,
  type AgUiRunInput,
  type Principal,
  zodFieldIssues,
  type RunEvent,
} from '@spindle/contracts';
import { AgUiStream, answerOfInterrupt, openRequestsOf, parseInterruptId, type AgUiEvent, type AgUiRunIds } from '@spindle/projections';
import type { RequestAnswers } from '../../requests/request-answers.service';
import type { ThreadRepository } from '@spindle/control-plane';
import type { ThreadRuns } from '../../threads/thread-runs.service';
import type { LiveRunItem, LiveRuns, NewRunFollow } from '../../runs/live-runs';
import { readAgentRun, type AgentWorkflow } from '../agent-run';
import { openProtocolThread } from '../protocol-threads';

/** The run an AG-UI stream follows, after `fromSeq`; a new run's follower comes joined already. */
interface FollowTarget {
  readonly runId: string;
  readonly fromSeq: number;
  readonly items?: AsyncIterable<LiveRunItem>;
}

/**
 * AG-UI 1.0 runs of a workflow: a `RunAgentInput` starts a Spindle run on the AG-UI thread's
 * Spindle thread (the last user message its input, the thread's state with the client's edits its
 * state, `forwardedProps.parameters` its parameters) or, with `resume`, answers the requests an
 * earlier run was interrupted on and continues that run. Either way the answer is
 * RUN_STARTED, the run's events as AG-UI events, and RUN_FINISHED or RUN_ERROR.
 */
export class AgUiRuns {
  constructor(
    private readonly threads: ThreadRepository,
    private readonly threadRuns: ThreadRuns,
    private readonly canceller: RunCanceller,
    private readonly answers: RequestAnswers,
    private readonly bus: Bus,
    private readonly live: LiveRuns,
  ) {}

  /** `gone`: the client left, and the stream stops following the run. */
  async *events(caller: Principal, workflow: AgentWorkflow, body: unknown, trace: Context, gone?: AbortSignal): AsyncIterable<AgUiEvent> {
    const parsed = agUiRunInputSchema.safeParse(body ?? {});
    if (!parsed.success) {
      const issues = describeIssues(zodFieldIssues(parsed.error.issues, { whole: '(input)' }));
      yield runError('validation_failed', `not a RunAgentInput: ${issues}`);
      return;
    }
    const input = parsed.data;
    const ids: AgUiRunIds = { threadId: input.threadId, runId: input.runId };
    yield { type: 'RUN_STARTED', ...ids, timestamp: Date.now() };
    let target: FollowTarget;
    try {
      target = input.resume?.length ? await this.resume(caller, workflow, input) : await this.start(caller, workflow, input, trace, gone);
    } catch (e) {
      if (!isSpindleError(e)) throw e;
      yield runError(e.code, protocolMessageOf(e.code, e.message));
      return;
    }
    yield* this.follow(target, ids, gone);
  }

  /**
   * A run on the AG-UI thread's Spindle thread, from the state the thread's last run left: the
   * keys of the client's `state` that differ from it (the client's edits of shared state) are
   * merged in first. A run still going on the thread is interrupted by the new one.
   */
  private async start(
    caller: Principal,
    workflow: AgentWorkflow,
    input: AgUiRunInput,
    trace: Context,
    gone?: AbortSignal,
  ): Promise<FollowTarget> {
    const forwarded = isJsonObject(input.forwardedProps) ? input.forwardedProps : {};
    const hasParameters = isJsonObject(workflow.definition) && 'parameters' in workflow.definition;
    const body = {
      workflow: workflow.name,
      input: lastUserText(input.messages),
      ...(hasParameters && { parameters: isJsonObject(forwarded.parameters) ? forwarded.parameters : {} }),
      multitaskStrategy: 'interrupt',
    };
    const threadId = await openProtocolThread(this.threads, caller, 'ag-ui', workflow, input.threadId, { agUiThreadId: input.threadId });
    await this.mergeEdits(caller, threadId, input.state);
    // Joined before the run can start: the tokens a fast model says at once are not missed.
    let follow: NewRunFollow | undefined;
    const accepted = await this.threadRuns
      .start(caller, threadId, body, trace, { beforeDispatch: (runId) => (follow = this.live.withTokensOfNewRun(runId, gone)).attach() })
      .catch((e: unknown) => {
        follow?.release();
        throw e;
      });
    return { runId: accepted.runId, fromSeq: 0, items: follow?.items };
  }

  /**
   * Merges the keys of the client's state that differ from the thread's. The thread's run
   * statuses are a projection: a run the client just saw finish may still count as busy for a
   * moment, so a busy thread is asked again, briefly, before the refusal stands.
   */
  private async mergeEdits(caller: Principal, threadId: string, clientState: unknown): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const edits = changedKeys(clientState, (await this.threads.state(threadId)).state);
      if (!edits) return;
      try {
        await this.threadRuns.setState(caller, threadId, { values: edits, mode: 'merge' });
        return;
      } catch (e) {
        if (!isSpindleError(e) || e.code !== 'thread_busy' || attempt >= BUSY_ATTEMPTS) throw e;
        await new Promise((resolve) => setTimeout(resolve, BUSY_PAUSE_MS));
      }
    }
  }

  /** Answers each resumed interrupt (all of one run); a cancelled one cancels the run. The stream goes on from the last answer. */
  private async resume(caller: Principal, workflow: AgentWorkflow, input: AgUiRunInput) {
    const entries = input.resume!.map((entry) => ({ entry, at: parseInterruptId(entry.interruptId) }));
    const runIds = new Set(entries.map((e) => e.at?.runId));
    const runId = [...runIds][0];
    if (runIds.size !== 1 || runId === undefined) {
      throw new SpindleError('validation_failed', 'resume answers the interrupts of one earlier run, by the ids it gave them');
    }
    const events = await this.runOf(caller, workflow, runId);
    let fromSeq = events.at(-1)!.seq;
    const open = new Map(openRequestsOf(events).map((r) => [r.requestId, r]));
    for (const { entry, at } of entries) {
      if (entry.status === 'cancelled') {
        await this.canceller.cancel(runId, 'the AG-UI client abandoned its interrupt', caller.actor);
        continue;
      }
      const outcome = await this.answers.answer(
        caller,
        runId,
        at!.requestId,
        answerOf(answerOfInterrupt(open.get(at!.requestId), entry.payload)),
      );
      fromSeq = Math.max(fromSeq, outcome.seq);
    }
    return { runId, fromSeq };
  }

  private async runOf(caller: Principal, workflow: AgentWorkflow, runId: string): Promise<RunEvent[]> {
    const events = await readAgentRun(this.bus, caller, workflow, runId);
    if (!events) throw new SpindleError('request_not_found', `no interrupt of a run "${runId}" of this agent`);
    return events;
  }

  /** The run's events after `fromSeq` as AG-UI events, until one ends the AG-UI run. */
  private async *follow(target: FollowTarget, ids: AgUiRunIds, gone?: AbortSignal): AsyncIterable<AgUiEvent> {
    const stream = new AgUiStream(ids);
    let tookOver = target.fromSeq === 0;
    for await (const item of target.items ?? this.live.withTokens(target.runId, gone)) {
      if ('token' in item) {
        if (tookOver) yield* stream.token(item.token);
        continue;
      }
      const { event, log } = item;
      if (!tookOver && event.seq > target.fromSeq) {
        // The steps open where this stream takes the run over: the log before this event.
        yield* stream.takeOver(log.slice(0, -1));
        tookOver = true;
      }
      if (!tookOver) continue;
      for (const out of stream.next(event, log)) {
        yield out;
        if (AgUiStream.ends(out)) return;
      }
    }
  }
}

/** How long a state edit waits for a thread the projection still shows busy: 40 × 50 ms. */
const BUSY_ATTEMPTS = 40;
const BUSY_PAUSE_MS = 50;

/** The keys of the client's state whose values differ from the thread's (undefined when none do). */
function changedKeys(client: unknown, thread: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!isJsonObject(client)) return undefined;
  const changed = Object.entries(client).filter(([key, value]) => canonicalJson(value) !== canonicalJson(thread[key]));
  return changed.length ? Object.fromEntries(changed) : undefined;
}

/** An interrupt's answer (`answerOfInterrupt`'s shape), checked as `…/respond` checks it. */
function answerOf(body: unknown) {
  const parsed = answerBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new SpindleError(
      'validation_failed',
      `the answer does not fit: ${describeIssues(zodFieldIssues(parsed.error.issues, { whole: '(answer)' }))}`,
    );
  }
  return parsed.data;
}

/** The text of the conversation's last user message (its text parts joined), or null. */
function lastUserText(messages: AgUiRunInput['messages']): string | null {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return null;
  if (typeof last.content === 'string') return last.content;
  const texts = (last.content ?? []).flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : []));
  return texts.length ? texts.join('\n') : null;
}

function runError(code: string, message: string): AgUiEvent {
  return { type: 'RUN_ERROR', code, message, timestamp: Date.now() };
}
