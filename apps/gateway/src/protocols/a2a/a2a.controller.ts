import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import {
  A2A_ERROR,
  isSpindleError,
  jsonRpcParseError,
  parseJsonRpcRequest,
  scopeOfJsonRpcMethod,
  type Principal,
} from '@spindle/contracts';
import { a2aAgentCardOf } from '@spindle/projections';
import { LOGGER } from '@spindle/service-kit';
import type { GatewayConfig } from '../../gateway.config';
import { GATEWAY_CONFIG } from '../../gateway.tokens';
import { SseWriter } from '../../http/sse-writer';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { WorkflowNameParam } from '../../http/path-params';
import { traceContextOf } from '../../http/request-tracing';
import { methodName, UNPARSABLE_BODY } from '../../http/json-rpc-body';
import { Caller } from '../../identity/caller.decorator';
import { requireScope } from '../../identity/require-scope';
import { OpenStreamsRegistry } from '../../runs/open-streams.registry';
import { findAgentWorkflow, type AgentWorkflow } from '../agent-run';
import { a2aErrorOf, A2aRpcError, WorkflowAgents } from './workflow-agents';
import { WorkflowCatalogRepository } from '@spindle/control-plane';

type RpcId = string | number | null;

/** The methods whose answer is an event stream. */
const STREAMING_METHODS = new Set(['message/stream', 'tasks/resubscribe']);

/**
 * A2A's JSON-RPC binding: each workflow of the tenant is an agent at `/v1/a2a/{name}`, its card
 * at `/v1/a2a/{name}/.well-known/agent-card.json`. Refusals of the protocol are JSON-RPC error
 * objects (HTTP 200, as the binding has it); a streaming method answers an event stream of
 * JSON-RPC responses.
 */
@Controller('v1/a2a')
export class A2aController {
  constructor(
    private readonly catalog: WorkflowCatalogRepository,
    private readonly agents: WorkflowAgents,
    private readonly streams: OpenStreamsRegistry,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get(':name/.well-known/agent-card.json')
  async card(@Caller() caller: Principal, @Param('name', WorkflowNameParam) name: string, @Req() req: FastifyRequest) {
    const workflow = await this.workflow(caller, name);
    return a2aAgentCardOf(workflow, `${req.protocol}://${req.host}/v1/a2a/${name}`);
  }

  @Post(':name')
  @HttpCode(200)
  async message(
    @Caller() caller: Principal,
    @Param('name', WorkflowNameParam) name: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (body === UNPARSABLE_BODY) return void reply.send(jsonRpcParseError());
    const workflow = await this.workflow(caller, name);
    const parsed = parseJsonRpcRequest(body);
    if (!parsed.ok) return void reply.send(rpcError(null, new A2aRpcError(A2A_ERROR.invalidRequest, parsed.reason)));
    const call = parsed.request;
    requireScope(caller, scopeOfJsonRpcMethod('a2a', call.method), methodName(call.method));
    // A streaming method holds a stream slot, taken before the run starts; a refusal is HTTP's 429, not an RPC error.
    if (STREAMING_METHODS.has(call.method)) this.streams.admit(caller, reply.raw, () => reply.raw.destroy());
    // The client left: whatever follows the task for it stops (the run goes on; its log has everything).
    const gone = new AbortController();
    reply.raw.once('close', () => gone.abort());
    try {
      const answer = await this.agents.call(caller, workflow, call.method, call.params, traceContextOf(req), gone.signal);
      if ('result' in answer) return void reply.send({ jsonrpc: '2.0', id: call.id, result: answer.result });
      reply.hijack();
      await this.stream(reply, call.id, answer.stream);
    } catch (e) {
      if (!reply.sent) return void reply.send(rpcError(call.id, this.asRpcError(e)));
    }
  }

  /**
   * Each item a JSON-RPC response of its own, as A2A's SSE streams carry them; a failure is the
   * last frame (or, before the first, the one answer).
   */
  private async stream(reply: FastifyReply, id: RpcId, items: AsyncIterable<unknown>): Promise<void> {
    const sse = new SseWriter(reply.raw, this.config.heartbeatMs);
    try {
      for await (const result of items) {
        sse.open();
        sse.data({ jsonrpc: '2.0', id, result });
        await sse.drained();
        if (sse.gone) break;
      }
    } catch (e) {
      const error = rpcError(id, this.asRpcError(e));
      if (!sse.opened) {
        reply.raw.writeHead(200, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify(error));
        return;
      }
      sse.data(error);
    }
    sse.end();
  }

  private workflow(caller: Principal, name: string): Promise<AgentWorkflow> {
    return findAgentWorkflow(this.catalog, caller, name);
  }

  private asRpcError(e: unknown): A2aRpcError {
    if (e instanceof A2aRpcError) return e;
    if (!isSpindleError(e) || e.code === 'internal') this.logger.error({ err: e }, 'A2A call failed');
    return a2aErrorOf(e);
  }
}

function rpcError(id: RpcId, e: A2aRpcError) {
  return { jsonrpc: '2.0', id, error: { code: e.code, message: e.message, ...(e.data !== undefined && { data: e.data }) } };
}
