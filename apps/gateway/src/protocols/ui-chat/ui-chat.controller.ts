import { Body, Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { Principal } from '@spindle/contracts';
import type { UiMessageChunk } from '@spindle/projections';
import { LOGGER } from '@spindle/service-kit';
import type { GatewayConfig } from '../../gateway.config';
import { GATEWAY_CONFIG } from '../../gateway.tokens';
import { SseWriter } from '../../http/sse-writer';
import { createUIMessageStream, JsonToSseTransformStream, UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from 'ai';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ChatIdParam, WorkflowNameParam } from '../../http/path-params';
import { traceContextOf } from '../../http/request-tracing';
import { Caller } from '../../identity/caller.decorator';
import { OpenStreamsRegistry } from '../../runs/open-streams.registry';
import { findAgentWorkflow, type AgentWorkflow } from '../agent-run';
import { UiChats } from './ui-chats';
import { WorkflowCatalogRepository } from '@spindle/control-plane';

/**
 * The AI SDK's chat transport: `POST /v1/chat/{name}` answers a chat's last message with a UI
 * message stream (what a stock `useChat` reads), and `GET /v1/chat/{name}/{chatId}/stream` resumes
 * the answer in progress after a reload (`204` when there is none).
 */
@Controller('v1/chat')
export class UiChatController {
  constructor(
    private readonly catalog: WorkflowCatalogRepository,
    private readonly chats: UiChats,
    private readonly streams: OpenStreamsRegistry,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post(':name')
  async send(
    @Caller() caller: Principal,
    @Param('name', WorkflowNameParam) name: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    this.admit(caller, reply);
    const gone = goneSignal(reply);
    const { runId, chunks } = await this.chats.send(caller, await this.workflow(caller, name), body, traceContextOf(req), gone);
    await this.stream(reply, runId, chunks);
  }

  @Get(':name/:chatId/stream')
  async resume(
    @Caller() caller: Principal,
    @Param('name', WorkflowNameParam) name: string,
    @Param('chatId', ChatIdParam) chatId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    this.admit(caller, reply);
    const runId = await this.chats.activeRun(caller, await this.workflow(caller, name), chatId);
    if (runId === undefined) return void reply.status(204).send();
    await this.stream(reply, runId, this.chats.chunks(runId, goneSignal(reply)));
  }

  /** Before the run starts: a refused stream starts nothing. On shutdown the connection is cut (the run goes on; a reload resumes it). */
  private admit(caller: Principal, reply: FastifyReply): void {
    this.streams.admit(caller, reply.raw, () => reply.raw.destroy());
  }

  /** The answer as the AI SDK's UI message stream (its frames and `[DONE]`), written by the gateway's SSE writer. */
  private async stream(reply: FastifyReply, runId: string, chunks: AsyncIterable<UiMessageChunk>): Promise<void> {
    reply.hijack();
    const stream = createUIMessageStream({
      execute: async ({ writer }) => {
        for await (const chunk of chunks) writer.write(chunk as UIMessageChunk);
      },
      onError: (err) => {
        this.logger.error({ err, runId }, 'chat stream failed');
        return 'the answer could not be streamed; reload to resume it';
      },
    });
    const sse = new SseWriter(reply.raw, this.config.heartbeatMs);
    sse.open({ ...UI_MESSAGE_STREAM_HEADERS, 'x-spindle-run-id': runId });
    for await (const frame of stream.pipeThrough(new JsonToSseTransformStream())) {
      if (sse.gone) break;
      sse.send(frame);
      await sse.drained();
    }
    sse.end();
  }

  private workflow(caller: Principal, name: string): Promise<AgentWorkflow> {
    return findAgentWorkflow(this.catalog, caller, name);
  }
}

/** A reload or a closed tab: the answer stops following the run (the run goes on; a reload resumes it). */
function goneSignal(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.once('close', () => gone.abort());
  return gone.signal;
}
