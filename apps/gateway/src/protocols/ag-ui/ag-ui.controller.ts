import { Body, Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { Principal } from '@spindle/contracts';
import { LOGGER } from '@spindle/service-kit';
import type { GatewayConfig } from '../../gateway.config';
import { GATEWAY_CONFIG } from '../../gateway.tokens';
import { SseWriter } from '../../http/sse-writer';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { WorkflowNameParam } from '../../http/path-params';
import { traceContextOf } from '../../http/request-tracing';
import { Caller } from '../../identity/caller.decorator';
import { OpenStreamsRegistry } from '../../runs/open-streams.registry';
import { findAgentWorkflow } from '../agent-run';
import { AgUiRuns } from './ag-ui-runs';
import { WorkflowCatalogRepository } from '@spindle/control-plane';

/**
 * AG-UI's HTTP transport: `POST /v1/ag-ui/{name}` with a `RunAgentInput` answers the run as an
 * event stream of AG-UI events (`data: <event>` frames), as `@ag-ui/client`'s HttpAgent reads it.
 */
@Controller('v1/ag-ui')
export class AgUiController {
  constructor(
    private readonly catalog: WorkflowCatalogRepository,
    private readonly runs: AgUiRuns,
    private readonly streams: OpenStreamsRegistry,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post(':name')
  async run(
    @Caller() caller: Principal,
    @Param('name', WorkflowNameParam) name: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // Before the run starts: a refused stream starts nothing. On shutdown the connection is cut (the run goes on).
    this.streams.admit(caller, reply.raw, () => reply.raw.destroy());
    const gone = new AbortController();
    reply.raw.once('close', () => gone.abort());
    const events = this.runs.events(caller, await findAgentWorkflow(this.catalog, caller, name), body, traceContextOf(req), gone.signal);
    reply.hijack();
    const sse = new SseWriter(reply.raw, this.config.heartbeatMs);
    sse.open();
    try {
      for await (const event of events) {
        // The client left: stop following (the run goes on; its log has everything).
        if (sse.gone) break;
        sse.data(event);
        await sse.drained();
      }
    } catch (err) {
      this.logger.error({ err, workflow: name }, 'AG-UI run stream failed');
      sse.data({ type: 'RUN_ERROR', code: 'internal', message: 'internal error', timestamp: Date.now() });
    }
    sse.end();
  }
}
