import type { Context } from '@opentelemetry/api';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type CreateTaskResult,
  type RequestId,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Bus } from '@spindle/bus';
import { isSpindleError, type Principal } from '@spindle/contracts';
import { mcpToolOf, startBodyOfToolCall, toolCallStepOf } from '@spindle/projections';
import type { Logger } from 'pino';
import type { RunCanceller } from '../../runs/run-canceller.service';
import type { RunStarter } from '../../runs/run-starter.service';
import type { WorkflowCatalogRepository } from '../../workflows/workflow-catalog.repository';
import { followWithLog } from '../agent-run';
import { MCP_TASK_CAPABILITIES, type WorkflowTasks } from './workflow-tasks';

type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What MCP says it is: the gateway's version of the protocol server. */
const SERVER_INFO = { name: 'spindle', title: 'Spindle workflows', version: '0.1.0' };

/**
 * The caller's tenant's workflows as MCP tools. `tools/list` lists them with their parameters as
 * the input schema; `tools/call` starts a run, reports each node's end as a progress notification
 * (when the call asked for progress), cancels the run when the client cancels the call, and
 * answers with the run's output, its failure as a tool error, or where a person must answer.
 */
export class WorkflowTools {
  /**
   * Calls in flight in this process, by who called, their MCP session and JSON-RPC id: a stateless
   * endpoint hears `notifications/cancelled` in another POST than the call's own.
   */
  private readonly inFlight = new Map<string, AbortController>();

  constructor(
    private readonly catalog: WorkflowCatalogRepository,
    private readonly starter: RunStarter,
    private readonly canceller: RunCanceller,
    private readonly tasks: WorkflowTasks,
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {}

  /** A protocol server for one HTTP request of `caller` (the endpoint is stateless; `session` only scopes request ids). */
  serverFor(caller: Principal, session: string, trace: Context): Server {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {}, tasks: MCP_TASK_CAPABILITIES },
      instructions:
        'Each tool runs one Spindle workflow to its end; its result is the run output. ' +
        'Ask for a task to have a long run answered at once and polled.',
    });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: (await this.catalog.listLatest(caller.tenant)).map(mcpToolOf),
    }));
    this.tasks.register(server, caller);
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      // A task outlives the request that made it: only its start happens here.
      if (request.params.task) return this.startTask(caller, trace, request.params);
      const key = callKey(caller, session, extra.requestId);
      const abort = new AbortController();
      const forward = () => abort.abort();
      extra.signal.addEventListener('abort', forward, { once: true });
      this.inFlight.set(key, abort);
      return this.call(caller, trace, request.params, extra, abort.signal).finally(() => {
        extra.signal.removeEventListener('abort', forward);
        if (this.inFlight.get(key) === abort) this.inFlight.delete(key);
      });
    });
    return server;
  }

  /** `notifications/cancelled` for a call: its run is canceled (when the call is in flight here). */
  cancelCall(caller: Principal, session: string, requestId: RequestId): void {
    this.inFlight.get(callKey(caller, session, requestId))?.abort();
  }

  /** `signal`: the call was canceled (its connection closed, or the client sent `notifications/cancelled`). */
  private async call(
    caller: Principal,
    trace: Context,
    params: CallToolRequest['params'],
    extra: CallExtra,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const started = await this.start(caller, trace, params).catch((e: unknown) => startRefused(e));
    if (typeof started !== 'string') return started;
    const runId = started;
    const cancel = () =>
      void this.canceller
        .cancel(runId, 'the MCP client canceled the tool call', caller.actor)
        .catch((err: unknown) => this.logger.warn({ err, runId }, 'could not cancel the run of a canceled tool call'));
    signal.addEventListener('abort', cancel, { once: true });
    try {
      return await this.answerOf(runId, extra);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /** A tool call run as a task: the run starts, and the answer is the task; any refusal is the call's error. */
  private async startTask(caller: Principal, trace: Context, params: CallToolRequest['params']): Promise<CreateTaskResult> {
    const runId = await this.start(caller, trace, params).catch((e: unknown) => {
      const refused = startRefused(e);
      throw new McpError(ErrorCode.InvalidRequest, refused.content[0]!.text, { code: isSpindleError(e) ? e.code : 'internal' });
    });
    return this.tasks.created(caller, runId);
  }

  /** Starts the run a call asks for: its id. An unknown tool or arguments that do not fit are invalid params. */
  private async start(caller: Principal, trace: Context, params: CallToolRequest['params']): Promise<string> {
    const workflow = await this.catalog.find(caller.tenant, params.name);
    if (!workflow) throw new McpError(ErrorCode.InvalidParams, `unknown tool "${params.name}": this tenant has no workflow of that name`);
    const body = startBodyOfToolCall(workflow.definition, params.arguments ?? {});
    if (!body) throw new McpError(ErrorCode.InvalidParams, `tool "${params.name}" takes one argument, "input"`);
    return (await this.starter.start(caller, params.name, body, undefined, trace)).accepted.runId;
  }

  /** Follows the run's log to the event that answers the call, sending progress on the way. */
  private async answerOf(runId: string, extra: CallExtra): Promise<CallToolResult> {
    const progressToken = extra._meta?.progressToken;
    let progress = 0;
    for await (const { event } of followWithLog(this.bus, runId, this.logger)) {
      const step = toolCallStepOf(event);
      if (step === null) continue;
      if ('answer' in step) return step.answer;
      if (progressToken !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: ++progress, message: step.progress },
        });
      }
    }
    throw new McpError(ErrorCode.InternalError, `the log of run ${runId} ended without an outcome`);
  }
}

function callKey(caller: Principal, session: string, requestId: RequestId): string {
  return JSON.stringify([caller.tenant, caller.actor.id, session, requestId]);
}

/**
 * A start the gateway refused: arguments that do not fit are the call's fault (invalid params);
 * any other refusal (a quota, the service unavailable) is the tool's result, as a tool error the
 * model can read, with its Spindle code.
 */
function startRefused(e: unknown): CallToolResult & { content: [{ type: 'text'; text: string }] } {
  if (!isSpindleError(e)) throw e;
  if (e.code === 'validation_failed' || e.code === 'workflow_not_found') {
    throw new McpError(ErrorCode.InvalidParams, e.message, { code: e.code, ...(e.issues && { issues: e.issues }) });
  }
  return { content: [{ type: 'text', text: `the run could not start (${e.code}): ${e.message}` }], isError: true };
}
