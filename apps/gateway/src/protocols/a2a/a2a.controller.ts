import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { A2A_ERROR, isSpindleError, type Principal } from '@spindle/contracts';
import { a2aAgentCardOf } from '@spindle/projections';
import { LOGGER } from '@spindle/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { WorkflowNameParam } from '../../http/path-params';
import { traceContextOf } from '../../http/request-tracing';
import { Caller } from '../../identity/caller.decorator';
import { OpenStreamsRegistry } from '../../runs/open-streams.registry';
import { WorkflowCatalogRepository } from '../../workflows/workflow-catalog.repository';
import { findAgentWorkflow, type AgentWorkflow } from '../agent-run';
import { A2aRpcError, WorkflowAgents } from './workflow-agents';

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
    const workflow = await this.workflow(caller, name);
    const call = rpcCallOf(body);
    if (call instanceof A2aRpcError) return void reply.send(rpcError(null, call));
    // A streaming method holds a stream slot, taken before the run starts; a refusal is HTTP's 429, not an RPC error.
    if (STREAMING_METHODS.has(call.method)) this.streams.admit(caller, reply.raw, () => reply.raw.destroy());
    try {
      const answer = await this.agents.call(caller, workflow, call.method, call.params, traceContextOf(req));
      if ('result' in answer) return void reply.send({ jsonrpc: '2.0', id: call.id, result: answer.result });
      reply.hijack();
      await this.stream(reply, call.id, answer.stream);
    } catch (e) {
      if (!reply.sent) return void reply.send(rpcError(call.id, this.asRpcError(e)));
    }
  }

  /** Each item a JSON-RPC response of its own, as A2A's SSE streams carry them; a failure is the last frame. */
  private async stream(reply: FastifyReply, id: RpcId, items: AsyncIterable<unknown>): Promise<void> {
    const res = reply.raw;
    const write = (frame: unknown) => res.write(`data: ${JSON.stringify(frame)}\n\n`);
    let headed = false;
    try {
      for await (const result of items) {
        if (!headed) {
          res.writeHead(200, {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-cache',
            'x-accel-buffering': 'no',
          });
          headed = true;
        }
        write({ jsonrpc: '2.0', id, result });
      }
    } catch (e) {
      const error = rpcError(id, this.asRpcError(e));
      if (!headed) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(error));
        return;
      }
      write(error);
    }
    res.end();
  }

  private workflow(caller: Principal, name: string): Promise<AgentWorkflow> {
    return findAgentWorkflow(this.catalog, caller, name);
  }

  private asRpcError(e: unknown): A2aRpcError {
    if (e instanceof A2aRpcError) return e;
    if (isSpindleError(e) && e.code !== 'internal') return new A2aRpcError(A2A_ERROR.internal, e.message, { code: e.code });
    this.logger.error({ err: e }, 'A2A call failed');
    return new A2aRpcError(A2A_ERROR.internal, 'internal error');
  }
}

/** The request a body is, or why it is none (an A2A request needs `jsonrpc`, a `method` and an `id`). */
function rpcCallOf(body: unknown): { id: RpcId; method: string; params: unknown } | A2aRpcError {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return new A2aRpcError(A2A_ERROR.invalidRequest, 'not a JSON-RPC request object');
  const { jsonrpc, id, method, params } = body as Record<string, unknown>;
  if (jsonrpc !== '2.0') return new A2aRpcError(A2A_ERROR.invalidRequest, 'jsonrpc must be "2.0"');
  if (typeof method !== 'string') return new A2aRpcError(A2A_ERROR.invalidRequest, 'method must be a string');
  if (typeof id !== 'string' && typeof id !== 'number')
    return new A2aRpcError(A2A_ERROR.invalidRequest, 'a request needs an id (string or number)');
  return { id, method, params };
}

function rpcError(id: RpcId, e: A2aRpcError) {
  return { jsonrpc: '2.0', id, error: { code: e.code, message: e.message, ...(e.data !== undefined && { data: e.data }) } };
}
