import { Body, Controller, Delete, Get, Headers, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Bus, RunLogTail } from '@spindle/bus';
import {
  cancelBodySchema,
  eventsQuerySchema,
  streamTokenBodySchema,
  type StreamToken,
  MAX_SEQ,
  parseDecimalInteger,
  runsListQuerySchema,
  SpindleError,
  type Principal,
  type RunAccepted,
  parseBody,
} from '@spindle/contracts';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import type { GatewayConfig } from '../gateway.config';
import { requireIssuedRunCursor } from '../http/list-query';
import { RunIdParam, WorkflowNameParam } from '../http/path-params';
import { traceContextOf } from '../http/request-tracing';
import { OpenStreamsRegistry } from './open-streams.registry';
import { RunEraser } from './run-eraser.service';
import { RunEventStream } from './run-event-stream';
import { RunFeedHub } from './run-feed.hub';
import { RunReads } from './run-reads.service';
import { AuditTrail } from '../identity/audit-trail';
import { RunAdmission, checkIdempotencyKey, RunStarter, WorkflowCatalogRepository, RunCanceller } from '@spindle/control-plane';
import { Caller } from '../identity/caller.decorator';
import { Authenticator } from '@spindle/identity';

const SEQ_RANGE = { min: 0, max: MAX_SEQ };

@Controller('v1')
export class RunsController {
  constructor(
    private readonly starter: RunStarter,
    private readonly reads: RunReads,
    @Inject(BUS) private readonly bus: Bus,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly eraser: RunEraser,
    private readonly openStreams: OpenStreamsRegistry,
    private readonly feeds: RunFeedHub,
    private readonly canceller: RunCanceller,
    private readonly audit: AuditTrail,
    private readonly admission: RunAdmission,
    private readonly catalog: WorkflowCatalogRepository,
    private readonly authenticator: Authenticator,
  ) {}

  @Post('workflows/:name/runs')
  async start(
    @Caller() caller: Principal,
    @Param('name', WorkflowNameParam) name: string,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    checkIdempotencyKey(key);
    const cancelOnDisconnect = (body as { cancelOnDisconnect?: unknown } | null)?.cancelOnDisconnect === true;
    if (!wantsEventStream(req)) {
      if (cancelOnDisconnect) {
        throw new SpindleError('validation_failed', 'cancelOnDisconnect only applies to a streamed run (Accept: text/event-stream)', {
          issues: [{ field: 'cancelOnDisconnect', message: 'needs Accept: text/event-stream' }],
        });
      }
      const { accepted, replayed } = await this.starter.start(caller, name, body, key, traceContextOf(req));
      if (!replayed) await this.recordStart(caller, req, accepted);
      return reply.status(202).header('location', accepted.location).header('idempotent-replayed', String(replayed)).send(accepted);
    }
    let stream: RunEventStream | undefined;
    // Before the run is started: a refused stream starts nothing.
    this.openStreams.admit(caller, reply.raw, () => (stream ? stream.close() : reply.raw.destroy()));
    const onClientGone = (runId: string) => () =>
      void this.canceller
        .cancel(runId, 'the client that started it disconnected', caller.actor)
        .catch((err: unknown) => this.logger.warn({ err, runId }, 'cancel on disconnect failed'));
    const open = (runId: string) =>
      (stream = this.eventStream(reply, runId, 0, { Location: `/v1/runs/${runId}` }, cancelOnDisconnect ? onClientGone(runId) : undefined));
    const { accepted, replayed } = await this.starter
      .start(caller, name, body, key, traceContextOf(req), { beforeDispatch: (runId) => open(runId).attach() })
      .catch((e) => {
        stream?.release();
        throw e;
      });
    stream ??= open(accepted.runId);
    if (!replayed) await this.recordStart(caller, req, accepted);
    reply.hijack();
    if (replayed) reply.raw.setHeader('Idempotent-Replayed', 'true');
    await this.serve(stream);
  }

  @Get('runs')
  list(@Caller() caller: Principal, @Query() query: unknown) {
    return this.reads.list({ ...requireIssuedRunCursor(parseBody(runsListQuerySchema, query, 'query')), tenant: caller.tenant });
  }

  /** The run, with its workflow's latest version now (is what it ran still current?) and, while queued, its place. */
  @Get('runs/:id')
  async get(@Param('id', RunIdParam) id: string) {
    const run = await this.reads.summary(id);
    const withLatest = { ...run, workflowLatestVersion: await this.catalog.latestVersion(run.tenant, run.workflow.name) };
    if (run.status !== 'queued') return withLatest;
    const queue = await this.admission.positionOf(id);
    return queue ? { ...withLatest, queue } : withLatest;
  }

  /** The run's fork tree: from its oldest recorded ancestor, every fork and fork of a fork, each with its checkpoint. */
  @Get('runs/:id/lineage')
  lineage(@Caller() caller: Principal, @Param('id', RunIdParam) id: string) {
    return this.reads.lineage(caller.tenant, id);
  }

  @Get('runs/:id/trace')
  trace(@Param('id', RunIdParam) id: string) {
    return this.reads.trace(id);
  }

  /** Cancels a queued, running or waiting run: `200` once canceled, `202` while its runner is stopping it. */
  @Post('runs/:id/cancel')
  async cancel(
    @Caller() caller: Principal,
    @Param('id', RunIdParam) id: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const { reason } = parseBody(cancelBodySchema, body ?? {});
    const outcome = await this.canceller.cancel(id, reason, caller.actor);
    await this.audit.record(caller, req, {
      action: 'run.canceled',
      target: { kind: 'run', id },
      detail: { status: outcome.status, reason },
    });
    return reply.status(outcome.status === 'canceled' ? 200 : 202).send(outcome);
  }

  /**
   * Erases an ended run everywhere: its log, payloads and every projection's rows (a
   * data-protection request). Admins only; the audit trail keeps who erased which run, and when.
   */
  @Delete('runs/:id')
  async erase(@Caller() caller: Principal, @Param('id', RunIdParam) id: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    const erased = await this.eraser.erase(id);
    await this.audit.record(caller, req, { action: 'run.erased', target: { kind: 'run', id }, detail: erased });
    return reply.status(204).send();
  }

  @Get('runs/:id/events')
  async events(
    @Caller() caller: Principal,
    @Param('id', RunIdParam) id: string,
    @Query() query: unknown,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const { after } = parseBody(eventsQuerySchema, query, 'query');
    if (!wantsEventStream(req)) return reply.send(await this.reads.events(id, after));
    const resumeFrom = parseLastEventId(lastEventId);
    const tail = await this.reads.requireLast(id);
    const stream = this.eventStream(reply, id, Math.max(after, resumeFrom), undefined, undefined, tail);
    this.openStreams.admit(caller, reply.raw, () => stream.close());
    reply.hijack();
    await this.serve(stream);
  }

  /** A short-lived token a page's `EventSource` carries in the URL to follow this run (the route checked the run is the caller's). */
  @Post('runs/:id/stream-tokens')
  streamToken(@Caller() caller: Principal, @Param('id', RunIdParam) id: string, @Body() body: unknown, @Res() reply: FastifyReply) {
    const { ttlSeconds } = parseBody(streamTokenBodySchema, body ?? {});
    const minted = this.authenticator.mintStreamToken(caller, id, ttlSeconds);
    const answer: StreamToken = { token: minted.token, runId: id, expiresAt: minted.expiresAt.toISOString() };
    return reply.status(201).header('cache-control', 'no-store').send(answer);
  }

  private recordStart(caller: Principal, req: FastifyRequest, accepted: RunAccepted): Promise<void> {
    return this.audit.record(caller, req, {
      action: 'run.started',
      target: { kind: 'run', id: accepted.runId },
      detail: { workflow: accepted.workflow },
    });
  }

  private eventStream(
    reply: FastifyReply,
    runId: string,
    afterSeq: number,
    headers?: Record<string, string>,
    onClientGone?: () => void,
    tail?: RunLogTail,
  ) {
    return new RunEventStream(
      this.bus,
      this.feeds,
      reply.raw,
      { runId, afterSeq, heartbeatMs: this.config.heartbeatMs, headers, onClientGone, tail },
      this.logger,
    );
  }

  /** The stream's slot (taken by `openStreams.admit`) is given back when the response closes. */
  private async serve(stream: RunEventStream) {
    stream.writeHead();
    await stream.pipe();
  }
}

function wantsEventStream(req: FastifyRequest): boolean {
  return (req.headers.accept ?? '').includes('text/event-stream');
}

/** The same strict integer as `?after=` (Node has already trimmed the header's surrounding spaces). */
function parseLastEventId(value: string | undefined): number {
  if (value === undefined || value === '') return 0;
  const seq = parseDecimalInteger(value, SEQ_RANGE);
  if (seq === undefined) {
    throw new SpindleError(
      'invalid_last_event_id',
      `Last-Event-ID must be the seq of an event (a decimal integer, 0 to ${MAX_SEQ}), got ${JSON.stringify(value.slice(0, 40))}`,
      { issues: [{ field: 'Last-Event-ID', message: 'not a seq' }] },
    );
  }
  return seq;
}
