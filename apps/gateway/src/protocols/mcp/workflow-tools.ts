import { McpRpcError } from './mcp-rpc-error';
import { randomUUID } from 'node:crypto';
import type { Context } from '@opentelemetry/api';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type CreateTaskResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { LiveRuns } from '../../runs/live-runs';
import {
  answerBodySchema,
  isJsonObject,
  isSpindleError,
  isTerminalEvent,
  protocolErrorOf,
  protocolMessageOf,
  type Principal,
  type RunEvent,
} from '@spindle/contracts';
import {
  answerOfElicitation,
  mcpElicitationOf,
  mcpToolOf,
  openRequestsOf,
  startBodyOfToolCall,
  toolCallStepOf,
} from '@spindle/projections';
import type { Logger } from 'pino';
import type { RequestAnswers } from '../../requests/request-answers.service';
import type { CallWatch, McpSessionRelay } from './mcp-session-relay';
import { MCP_TASK_CAPABILITIES, type WorkflowTasks } from './workflow-tasks';
import { type RunStarter, type WorkflowCatalogRepository, type RunCanceller } from '@spindle/control-plane';

type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What MCP says it is: the gateway's version of the protocol server. */
const SERVER_INFO = { name: 'spindle', title: 'Spindle workflows', version: '0.1.0' };

/**
 * The caller's tenant's workflows as MCP tools. `tools/list` lists them with their parameters as
 * the input schema; `tools/call` starts a run, reports each node's end as a progress notification
 * (when the call asked for progress), asks the client's user what a person must answer (when it
 * takes elicitations), cancels the run when the client cancels the call, and answers with the
 * run's output, its failure as a tool error, or where a person must answer. A call asked as a task
 * answers with the task at once (`WorkflowTasks`).
 */
export class WorkflowTools {
  constructor(
    private readonly catalog: WorkflowCatalogRepository,
    private readonly starter: RunStarter,
    private readonly canceller: RunCanceller,
    private readonly tasks: WorkflowTasks,
    private readonly relay: McpSessionRelay,
    private readonly answers: RequestAnswers,
    private readonly live: LiveRuns,
    private readonly logger: Logger,
  ) {}

  /**
   * A protocol server for one HTTP request of `caller` on `transport` (the endpoint is stateless:
   * `session` only tells which client's calls are which, and whether it takes form elicitations).
   */
  serverFor(caller: Principal, session: string, trace: Context, transport: Transport): Server {
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
      const abort = new AbortController();
      const cancel = () => abort.abort();
      extra.signal.addEventListener('abort', cancel, { once: true });
      const watch = this.relay.watch(caller, session, { requestId: extra.requestId, transport, onCancel: cancel });
      const person = takesFormElicitation(session) ? watch : undefined;
      return this.call(caller, trace, request.params, extra, abort.signal, person).finally(() => {
        extra.signal.removeEventListener('abort', cancel);
        watch.close();
      });
    });
    return server;
  }

  /** `signal`: the call was canceled (its connection closed, or the client sent `notifications/cancelled`). */
  private async call(
    caller: Principal,
    trace: Context,
    params: CallToolRequest['params'],
    extra: CallExtra,
    signal: AbortSignal,
    person: CallWatch | undefined,
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
      return await this.answerOf(caller, runId, extra, signal, person);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /** A tool call run as a task: the run starts, and the answer is the task; any refusal is the call's error. */
  private async startTask(caller: Principal, trace: Context, params: CallToolRequest['params']): Promise<CreateTaskResult> {
    const runId = await this.start(caller, trace, params).catch((e: unknown) => {
      const refused = startRefused(e);
      throw new McpRpcError(ErrorCode.InvalidRequest, refused.content[0]!.text, { code: isSpindleError(e) ? e.code : 'internal' });
    });
    return this.tasks.created(caller, runId);
  }

  /** Starts the run a call asks for: its id. An unknown tool or arguments that do not fit are invalid params. */
  private async start(caller: Principal, trace: Context, params: CallToolRequest['params']): Promise<string> {
    const workflow = await this.catalog.find(caller.tenant, params.name);
    if (!workflow)
      throw new McpRpcError(ErrorCode.InvalidParams, `unknown tool "${params.name}": this tenant has no workflow of that name`);
    const body = startBodyOfToolCall(workflow.definition, params.arguments ?? {});
    if (!body) throw new McpRpcError(ErrorCode.InvalidParams, `tool "${params.name}" takes one argument, "input"`);
    return (await this.starter.start(caller, params.name, body, undefined, trace)).accepted.runId;
  }

  /**
   * Follows the run's log to the event that answers the call, sending progress on the way. A run
   * waiting for a person asks the client's user instead, when the client takes elicitations and
   * the requests fit a form, and goes on once they answered.
   */
  private async answerOf(
    caller: Principal,
    runId: string,
    extra: CallExtra,
    signal: AbortSignal,
    person: CallWatch | undefined,
  ): Promise<CallToolResult> {
    const progressToken = extra._meta?.progressToken;
    let progress = 0;
    for await (const { event, log } of this.live.withLog(runId)) {
      const step = toolCallStepOf(event);
      if (step === null) continue;
      if ('answer' in step) {
        if (event.type === 'run.awaiting' && person && (await this.askPerson(caller, runId, log, person, signal))) continue;
        return step.answer;
      }
      if (progressToken !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: ++progress, message: step.progress },
        });
      }
    }
    throw new McpRpcError(ErrorCode.InternalError, `the log of run ${runId} ended without an outcome`);
  }

  /** Whether the request was answered (or the run ended) before `signal` stopped the watch. */
  private async answeredElsewhere(runId: string, requestId: string, signal: AbortSignal): Promise<boolean> {
    for await (const { event } of this.live.withLog(runId, signal)) {
      if (isTerminalEvent(event)) return true;
      if ((event.type === 'input.answered' || event.type === 'approval.resolved') && event.data.requestId === requestId) return true;
    }
    return false;
  }

  /**
   * Asks each open request by elicitation and answers it as the person did (an approval bound to
   * the exact call shown). True when every one is answered (by them, or by someone else meanwhile);
   * false when one cannot be asked, or is declined or dismissed: the call then says where to answer.
   */
  private async askPerson(caller: Principal, runId: string, log: readonly RunEvent[], person: CallWatch, signal: AbortSignal) {
    for (const request of openRequestsOf(log)) {
      const elicitation = mcpElicitationOf(request);
      if (!elicitation) return false;
      // Someone may answer at /v1/requests while the client's user looks at the question: then it is withdrawn.
      const stop = new AbortController();
      const asking = AbortSignal.any([signal, stop.signal]);
      const answeredThere = this.answeredElsewhere(runId, request.requestId, asking).then((found) => (found && stop.abort(), found));
      const reply = await person.elicit(elicitation, asking);
      stop.abort();
      if (await answeredThere) continue;
      if (reply.action !== 'accept' || !reply.content) return false;
      const body = answerBodySchema.safeParse(answerOfElicitation(request, reply.content));
      if (!body.success) return false;
      const answered = await this.answers.answer(caller, runId, request.requestId, body.data).then(
        () => true,
        (e: unknown) => {
          if (!isSpindleError(e)) throw e;
          // Answered differently through /v1/requests meanwhile: the run goes on all the same.
          return e.code === 'conflict';
        },
      );
      if (!answered) return false;
    }
    return true;
  }
}

/** Whether the client said at `initialize` that it takes form elicitations (its session id carries it). */
export function takesFormElicitation(session: string): boolean {
  return session.endsWith(FORM_ELICITATION_SUFFIX);
}

/** A session id for a client with these capabilities: marked when it takes form elicitations. */
export function sessionIdFor(capabilities: unknown): string {
  const elicitation = isJsonObject(capabilities) ? capabilities.elicitation : undefined;
  // `{}` is form mode (as before modes existed); with modes named, `form` must be one.
  const forms = isJsonObject(elicitation) && (Object.keys(elicitation).length === 0 || isJsonObject(elicitation.form));
  return `${randomUUID()}${forms ? FORM_ELICITATION_SUFFIX : ''}`;
}

const FORM_ELICITATION_SUFFIX = '.forms';

/**
 * A start the gateway refused, as the protocol error table says it: a refusal that is the call's
 * fault (arguments that do not fit, an unknown tool) is the call's error; any other (a quota, the
 * service unavailable) is the tool's result, as a tool error the model can read, with its Spindle code.
 */
function startRefused(e: unknown): CallToolResult & { content: [{ type: 'text'; text: string }] } {
  if (!isSpindleError(e)) throw e;
  const { mcpCall } = protocolErrorOf(e.code);
  const message = protocolMessageOf(e.code, e.message);
  if (mcpCall !== null) throw new McpRpcError(mcpCall, message, { code: e.code, ...(e.issues && { issues: e.issues }) });
  return { content: [{ type: 'text', text: `the run could not start (${e.code}): ${message}` }], isError: true };
}
