import { Body, Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  jsonRpcMessageSchema,
  jsonRpcParseError,
  scopeOfJsonRpcMethod,
  SpindleError,
  type JsonRpcMessage,
  type Principal,
} from '@spindle/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { traceContextOf } from '../../http/request-tracing';
import { methodName, UNPARSABLE_BODY } from '../../http/json-rpc-body';
import { Caller } from '../../identity/caller.decorator';
import { requireScope } from '../../identity/require-scope';
import { OpenStreamsRegistry } from '../../runs/open-streams.registry';
import { McpSessionRelay } from './mcp-session-relay';
import { sessionIdFor, WorkflowTools } from './workflow-tools';

/**
 * `/v1/mcp`: the Model Context Protocol's streamable HTTP transport, stateless (every POST
 * carries one JSON-RPC message and gets its answer, or an SSE stream of progress, questions for
 * the client's user, and the answer; the client's answers to those come in POSTs of their own).
 * No session, so no GET stream and no DELETE: both answer 405, as the transport allows.
 */
@Controller('v1/mcp')
export class McpController {
  constructor(
    private readonly tools: WorkflowTools,
    private readonly relay: McpSessionRelay,
    private readonly streams: OpenStreamsRegistry,
  ) {}

  @Post()
  async message(@Caller() caller: Principal, @Body() body: unknown, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (body === UNPARSABLE_BODY) return void reply.status(400).send(jsonRpcParseError());
    // The one envelope: what is not a JSON-RPC message is left to the transport to refuse.
    const parsed = jsonRpcMessageSchema.safeParse(body);
    const message = parsed.success ? parsed.data : undefined;
    if (message) requireScope(caller, scopeOfJsonRpcMethod('mcp', message.method), methodName(message.method));
    const session = sessionOf(req, message, reply);
    // What the client says about a call in flight goes to whichever gateway holds the call.
    if (message && (isCancellation(message) || isAnswer(message))) this.relay.relay(caller, session, message);
    if (message && isAnswer(message)) {
      void reply.status(202).send();
      return;
    }
    // Every message the transport answers may be an event stream (a tool call's progress): each holds a slot while open.
    this.streams.admit(caller, reply.raw, () => reply.raw.destroy());
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = this.tools.serverFor(caller, session, traceContextOf(req), transport);
    reply.hijack();
    reply.raw.once('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, body);
  }

  @Get()
  stream(@Res({ passthrough: true }) reply: FastifyReply): never {
    return notAllowed(reply);
  }

  @Delete()
  end(@Res({ passthrough: true }) reply: FastifyReply): never {
    return notAllowed(reply);
  }
}

function notAllowed(reply: FastifyReply): never {
  void reply.header('allow', 'POST');
  throw new SpindleError('method_not_allowed', 'this MCP endpoint is stateless: send each JSON-RPC message in a POST');
}

const SESSION_HEADER = 'mcp-session-id';

/**
 * The client's MCP session: an id handed out with the answer to `initialize`, which clients send
 * back on every request. Nothing is kept under it: it tells apart two clients' request ids (both
 * count from 0), so a cancellation or an answer reaches the right call, and carries whether the
 * client takes form elicitations.
 */
function sessionOf(req: FastifyRequest, message: JsonRpcMessage | undefined, reply: FastifyReply): string {
  if (message?.method === 'initialize') {
    const session = sessionIdFor(message.params?.capabilities);
    reply.raw.setHeader(SESSION_HEADER, session);
    return session;
  }
  const given = req.headers[SESSION_HEADER];
  return typeof given === 'string' ? given : '';
}

function isCancellation(message: JsonRpcMessage): boolean {
  const requestId = message.params?.requestId;
  return message.method === 'notifications/cancelled' && (typeof requestId === 'string' || typeof requestId === 'number');
}

/** A client's answer to a request of the server (an elicitation): a JSON-RPC result or error, no method. */
function isAnswer(message: JsonRpcMessage): boolean {
  return message.method === undefined && message.id !== undefined && (message.result !== undefined || message.error !== undefined);
}
