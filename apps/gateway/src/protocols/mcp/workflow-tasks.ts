import { McpRpcError } from './mcp-rpc-error';
import { type RunCanceller } from '@spindle/control-plane';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type CreateTaskResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Bus } from '@spindle/bus';
import { isSpindleError, isTerminalEvent, type Principal, type RunEvent } from '@spindle/contracts';
import { mcpTaskOf, toolCallStepOf, type McpTask } from '@spindle/projections';
import type { LiveRuns } from '../../runs/live-runs';
import { readTenantRun } from '../agent-run';

/** What the server says of tasks: tool calls may run as tasks, which can be canceled (listing is not offered). */
export const MCP_TASK_CAPABILITIES = { cancel: {}, requests: { tools: { call: {} } } };

/**
 * MCP tasks (the 2025-11-25 extension) over Spindle runs: a tool call the client asks to run as a
 * task answers at once with the task, whose id is the run's; `tasks/get` reads the run's log,
 * `tasks/result` waits for the run's end and answers what the call would have, `tasks/cancel`
 * cancels the run. Nothing is stored but the log, so any gateway answers for any task, and a
 * task is the caller's tenant's or no one's.
 */
export class WorkflowTasks {
  constructor(
    private readonly canceller: RunCanceller,
    private readonly bus: Bus,
    private readonly live: LiveRuns,
  ) {}

  register(server: Server, caller: Principal): void {
    server.setRequestHandler(GetTaskRequestSchema, async (request) => mcpTaskOf(await this.logOf(caller, request.params.taskId)));
    server.setRequestHandler(GetTaskPayloadRequestSchema, (request, extra) => this.resultOf(caller, request.params.taskId, extra.signal));
    server.setRequestHandler(CancelTaskRequestSchema, (request) => this.cancel(caller, request.params.taskId));
  }

  /** The answer to a tool call run as a task: the run it started, as its log says now. */
  async created(caller: Principal, runId: string): Promise<CreateTaskResult> {
    return { task: mcpTaskOf(await this.logOf(caller, runId)) };
  }

  private async logOf(caller: Principal, taskId: string): Promise<RunEvent[]> {
    const events = await readTenantRun(this.bus, caller, taskId);
    if (!events?.length) throw new McpRpcError(ErrorCode.InvalidParams, `no task "${taskId}"`);
    return events;
  }

  /** What the call would have answered, once the run has ended (a person answers a waiting run at /v1/requests meanwhile). */
  private async resultOf(caller: Principal, taskId: string, signal: AbortSignal): Promise<CallToolResult> {
    await this.logOf(caller, taskId);
    for await (const { event } of this.live.withLog(taskId, signal)) {
      const step = isTerminalEvent(event) ? toolCallStepOf(event) : null;
      if (step && 'answer' in step) return { ...step.answer, _meta: { ...step.answer._meta, [RELATED_TASK_META_KEY]: { taskId } } };
    }
    throw new McpRpcError(ErrorCode.InternalError, `stopped waiting for task ${taskId}: the client left`);
  }

  private async cancel(caller: Principal, taskId: string): Promise<McpTask> {
    const events = await this.logOf(caller, taskId);
    if (isTerminalEvent(events.at(-1)!)) throw alreadyEnded(mcpTaskOf(events));
    await this.canceller.cancel(taskId, 'the MCP client cancelled the task', caller.actor).catch((e: unknown) => {
      // The run ended between the read and the cancel.
      if (isSpindleError(e) && e.code === 'conflict') return;
      throw e;
    });
    const task = mcpTaskOf(await this.logOf(caller, taskId));
    // The run reached its own end first.
    if (task.status === 'completed' || task.status === 'failed') throw alreadyEnded(task);
    return task;
  }
}

function alreadyEnded(task: McpTask): McpRpcError {
  return new McpRpcError(ErrorCode.InvalidParams, `task ${task.taskId} has already ended (${task.status}): it cannot be cancelled`);
}
