import { createHash } from 'node:crypto';
import type { Context } from '@opentelemetry/api';
import { readRunLog, type Bus } from '@spindle/bus';
import {
  A2A_ERROR,
  A2A_FINAL_STATES,
  a2aMessageSendParamsSchema,
  a2aTaskIdParamsSchema,
  answerBodySchema,
  describeIssues,
  isSpindleError,
  protocolErrorOf,
  protocolMessageOf,
  zodFieldIssues,
  type A2aArtifactUpdate,
  type A2aMessage,
  type A2aStatusUpdate,
  type A2aTask,
  type Principal,
  type RunEvent,
} from '@spindle/contracts';
import { a2aTaskOf, answerOfMessage, requestsInLog, runPhase, startBodyOfMessage } from '@spindle/projections';
import type { z } from 'zod';
import type { RequestAnswers } from '../../requests/request-answers.service';
import type { LiveRuns } from '../../runs/live-runs';
import { readAgentRun, type AgentWorkflow } from '../agent-run';
import { type RunStarter, type RunCanceller } from '@spindle/control-plane';

/** A JSON-RPC refusal in A2A's terms. */
export class A2aRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** What a streaming method yields: the task first, then its updates. */
export type A2aStreamItem = A2aTask | A2aStatusUpdate | A2aArtifactUpdate;

/** A method's answer: one result, or a stream of them (`message/stream`, `tasks/resubscribe`). */
export type A2aAnswer = { result: unknown } | { stream: AsyncIterable<A2aStreamItem> };

/**
 * One workflow as an A2A agent: a message starts a run (a task) or answers the person the task
 * waits for; tasks are read, followed and canceled through the run's log. Every task is checked
 * to be a run of this workflow in the caller's tenant; any other id is not found.
 */
export class WorkflowAgents {
  constructor(
    private readonly starter: RunStarter,
    private readonly canceller: RunCanceller,
    private readonly answers: RequestAnswers,
    private readonly bus: Bus,
    private readonly live: LiveRuns,
  ) {}

  /** `gone`: the client left, and whatever follows the task for it stops (the run goes on). */
  async call(
    caller: Principal,
    workflow: AgentWorkflow,
    method: string,
    params: unknown,
    trace: Context,
    gone?: AbortSignal,
  ): Promise<A2aAnswer> {
    switch (method) {
      case 'message/send':
        return { result: await this.send(caller, workflow, params, trace, gone) };
      case 'message/stream':
        return { stream: this.sendStreaming(caller, workflow, params, trace, gone) };
      case 'tasks/get':
        return { result: a2aTaskOf(await this.taskLog(caller, workflow, parse(a2aTaskIdParamsSchema, params).id)) };
      case 'tasks/cancel':
        return { result: await this.cancel(caller, workflow, parse(a2aTaskIdParamsSchema, params).id) };
      case 'tasks/resubscribe':
        return { stream: this.resubscribe(await this.taskLog(caller, workflow, parse(a2aTaskIdParamsSchema, params).id), gone) };
      case 'tasks/pushNotificationConfig/set':
      case 'tasks/pushNotificationConfig/get':
      case 'tasks/pushNotificationConfig/list':
      case 'tasks/pushNotificationConfig/delete':
        throw new A2aRpcError(A2A_ERROR.pushNotificationNotSupported, 'push notifications are not supported: stream or poll the task');
      default:
        throw new A2aRpcError(A2A_ERROR.methodNotFound, `no method "${method}"`);
    }
  }

  /** `message/send`: the task when it ends or needs input (unless `blocking: false`: the task as it stands). */
  private async send(caller: Principal, workflow: AgentWorkflow, params: unknown, trace: Context, gone?: AbortSignal): Promise<A2aTask> {
    const { message, configuration } = parse(a2aMessageSendParamsSchema, params);
    const { runId, fromSeq } = await this.accept(caller, workflow, message, trace);
    if (configuration?.blocking === false) return a2aTaskOf((await readRunLog(this.bus, runId)).events);
    let task: A2aTask | undefined;
    for await (const state of this.taskStates(runId, fromSeq, gone)) task = state.task;
    return task ?? a2aTaskOf((await readRunLog(this.bus, runId)).events);
  }

  private async *sendStreaming(
    caller: Principal,
    workflow: AgentWorkflow,
    params: unknown,
    trace: Context,
    gone?: AbortSignal,
  ): AsyncIterable<A2aStreamItem> {
    const { message } = parse(a2aMessageSendParamsSchema, params);
    const { runId, fromSeq } = await this.accept(caller, workflow, message, trace);
    yield* this.updates(runId, fromSeq, gone);
  }

  /** A new message starts a run; one naming a task answers what the task waits for. `fromSeq`: where its effect begins in the log. */
  private async accept(
    caller: Principal,
    workflow: AgentWorkflow,
    message: A2aMessage,
    trace: Context,
  ): Promise<{ runId: string; fromSeq: number }> {
    if (message.taskId !== undefined) return this.answer(caller, workflow, message.taskId, message);
    const body = startBodyOfMessage(workflow.definition, message);
    // The message id is the idempotency key: the same message again is the same task.
    const key = `a2a:${createHash('sha256').update(message.messageId).digest('hex')}`;
    const started = await this.starter.start(caller, workflow.name, body, key, trace);
    return { runId: started.accepted.runId, fromSeq: 0 };
  }

  private async answer(
    caller: Principal,
    workflow: AgentWorkflow,
    taskId: string,
    message: A2aMessage,
  ): Promise<{ runId: string; fromSeq: number }> {
    const events = await this.taskLog(caller, workflow, taskId);
    if (runPhase(events).phase !== 'waiting') {
      throw new A2aRpcError(A2A_ERROR.unsupportedOperation, `task ${taskId} is ${a2aTaskOf(events).status.state}: it takes no message now`);
    }
    const open = [...requestsInLog(events).values()].filter((r) => r.answers.length === 0).map((r) => r.requestId);
    const given = answerOfMessage(message);
    const requestId = given.requestId ?? (open.length === 1 ? open[0] : undefined);
    if (requestId === undefined) {
      throw new A2aRpcError(
        A2A_ERROR.invalidParams,
        `task ${taskId} waits on ${open.length} requests: name one with "requestId" in a data part`,
        {
          requestIds: open,
        },
      );
    }
    const outcome = await this.answers.answer(caller, taskId, requestId, parse(answerBodySchema, given.body));
    return { runId: taskId, fromSeq: outcome.seq };
  }

  private async cancel(caller: Principal, workflow: AgentWorkflow, taskId: string): Promise<A2aTask> {
    const events = await this.taskLog(caller, workflow, taskId);
    if (runPhase(events).phase === 'ended') throw new A2aRpcError(A2A_ERROR.taskNotCancelable, `task ${taskId} has ended`);
    await this.canceller.cancel(taskId, 'canceled through A2A', caller.actor).catch((e: unknown) => {
      if (isSpindleError(e) && e.code === 'conflict') throw new A2aRpcError(A2A_ERROR.taskNotCancelable, `task ${taskId} has ended`);
      throw e;
    });
    return a2aTaskOf((await readRunLog(this.bus, taskId)).events);
  }

  /** The log of a run of this workflow in the caller's tenant; any other id is `TaskNotFound`. */
  private async taskLog(caller: Principal, workflow: AgentWorkflow, taskId: string): Promise<RunEvent[]> {
    const events = await readAgentRun(this.bus, caller, workflow, taskId);
    if (!events) throw new A2aRpcError(A2A_ERROR.taskNotFound, `no task "${taskId}"`);
    return events;
  }

  /**
   * The task now, then an update each time its state changes (the output as an artifact before
   * `completed`), ending with the update that is final.
   */
  private async *updates(runId: string, fromSeq: number, gone?: AbortSignal, known?: A2aTask): AsyncIterable<A2aStreamItem> {
    let last = known;
    for await (const { task, final } of this.taskStates(runId, fromSeq, gone)) {
      if (!last) yield task;
      else if (task.status.state !== last.status.state || final) {
        for (const artifact of task.artifacts ?? [])
          yield { kind: 'artifact-update', taskId: runId, contextId: task.contextId, artifact, lastChunk: true };
        yield { kind: 'status-update', taskId: runId, contextId: task.contextId, status: task.status, final };
      }
      last = task;
    }
  }

  /** `tasks/resubscribe`: the task as it stands, then its updates (nothing more once it has ended). */
  private async *resubscribe(events: RunEvent[], gone?: AbortSignal): AsyncIterable<A2aStreamItem> {
    const task = a2aTaskOf(events);
    yield task;
    if (runPhase(events).phase !== 'ended') yield* this.updates(task.id, events.at(-1)!.seq, gone, task);
  }

  /** The task after each run-level event from `fromSeq` on, until it is final (what came before `fromSeq` cannot end it). */
  private async *taskStates(runId: string, fromSeq: number, gone?: AbortSignal): AsyncIterable<{ task: A2aTask; final: boolean }> {
    for await (const { event, log } of this.live.withLog(runId, gone)) {
      if (event.seq < fromSeq || !event.type.startsWith('run.')) continue;
      const task = a2aTaskOf(log);
      const final = event.seq > fromSeq && A2A_FINAL_STATES.has(task.status.state);
      yield { task, final };
      if (final) return;
    }
  }
}

function parse<S extends z.ZodType>(schema: S, params: unknown): z.infer<S> {
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) {
    const issues = zodFieldIssues(parsed.error.issues, { whole: '(params)' });
    throw new A2aRpcError(A2A_ERROR.invalidParams, `invalid params: ${describeIssues(issues)}`, { issues });
  }
  return parsed.data;
}

/** Any failure as an A2A error: a Spindle refusal by the protocol error table, anything else internal. */
export function a2aErrorOf(e: unknown): A2aRpcError {
  if (!isSpindleError(e)) return new A2aRpcError(A2A_ERROR.internal, 'internal error');
  const data = { code: e.code, ...(e.issues && { issues: e.issues }) };
  return new A2aRpcError(protocolErrorOf(e.code).a2a, protocolMessageOf(e.code, e.message), data);
}
