import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  newWebhookBodySchema,
  SpindleError,
  WEBHOOK_EVENT_TYPES,
  webhookDeliveriesQuerySchema,
  type CreatedWebhook,
  type Principal,
  type Webhook,
  type WebhookDeliveries,
  type WebhookList,
  parseBody,
} from '@spindle/contracts';
import { decodeKeysetCursor, encodeKeysetCursor } from '@spindle/db';
import { checkEgressUrl } from '@spindle/egress';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ulid } from 'ulid';
import type { GatewayConfig } from '../gateway.config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { requireIssuedCursor } from '../http/list-query';
import { WebhookIdParam } from '../http/path-params';
import { refuseNulCharacters } from '../http/storable-json';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';
import {
  newWebhookSecret,
  ScheduleRepository,
  ThreadRepository,
  WebhookRepository,
  WorkflowCatalogRepository,
} from '@spindle/control-plane';

/** Subscriptions to run events, POSTed signed to the caller's URL, and every delivery with its attempts. */
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly catalog: WorkflowCatalogRepository,
    private readonly threads: ThreadRepository,
    private readonly schedules: ScheduleRepository,
    private readonly audit: AuditTrail,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** `201` with the signing `secret`, shown this once. */
  @Post()
  async create(@Caller() caller: Principal, @Body() body: unknown, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    refuseNulCharacters(body);
    const asked = parseBody(newWebhookBodySchema, body ?? {});
    const { allowHttp, egress } = this.config.webhooks;
    const url = checkEgressUrl(asked.url, egress, {
      allowHttp,
      field: 'url',
      allowListVariable: 'SPINDLE_WEBHOOK_ALLOWED_HOSTS',
    }).toString();
    if (asked.workflow !== undefined && !(await this.catalog.find(caller.tenant, asked.workflow)))
      throw new SpindleError('workflow_not_found', `no workflow named "${asked.workflow}"`);
    if (asked.threadId !== undefined && !(await this.threads.find(caller.tenant, asked.threadId)))
      throw new SpindleError('thread_not_found', `no thread with id "${asked.threadId}"`);
    if (asked.scheduleId !== undefined && !(await this.schedules.find(caller.tenant, asked.scheduleId)))
      throw new SpindleError('not_found', `no schedule with id "${asked.scheduleId}"`);
    const webhookId = `wh_${ulid()}`;
    const secret = newWebhookSecret();
    const events = asked.events ?? [...WEBHOOK_EVENT_TYPES];
    await this.webhooks.create(
      {
        id: webhookId,
        tenant: caller.tenant,
        url,
        events,
        workflow: asked.workflow,
        threadId: asked.threadId,
        scheduleId: asked.scheduleId,
        namedOnly: asked.namedOnly,
      },
      secret,
      caller.actor,
    );
    await this.audit.record(caller, req, {
      action: 'webhook.created',
      target: { kind: 'webhook', id: webhookId },
      detail: { url, events },
    });
    const created: CreatedWebhook = { ...(await this.requireWebhook(caller, webhookId)), secret };
    return reply.status(201).header('location', `/v1/webhooks/${webhookId}`).send(created);
  }

  @Get()
  async list(@Caller() caller: Principal): Promise<WebhookList> {
    return { webhooks: await this.webhooks.list(caller.tenant) };
  }

  @Get(':webhookId')
  get(@Caller() caller: Principal, @Param('webhookId', WebhookIdParam) webhookId: string): Promise<Webhook> {
    return this.requireWebhook(caller, webhookId);
  }

  /** Newest first, each with every attempt: status, error, time taken and the start of the answer. */
  @Get(':webhookId/deliveries')
  async deliveries(
    @Caller() caller: Principal,
    @Param('webhookId', WebhookIdParam) webhookId: string,
    @Query() query: unknown,
  ): Promise<WebhookDeliveries> {
    await this.requireWebhook(caller, webhookId);
    const { limit, cursor } = requireIssuedCursor(parseBody(webhookDeliveriesQuerySchema, query, 'query'));
    const deliveries = await this.webhooks.deliveries(webhookId, limit, cursor ? decodeKeysetCursor(cursor) : undefined);
    const last = deliveries.at(-1);
    return {
      deliveries,
      nextCursor: deliveries.length === limit && last ? encodeKeysetCursor({ at: last.createdAt, id: last.deliveryId }) : null,
    };
  }

  /** Stops it: deliveries not made yet are canceled; the ones made stay readable. */
  @Delete(':webhookId')
  @HttpCode(204)
  async remove(@Caller() caller: Principal, @Param('webhookId', WebhookIdParam) webhookId: string, @Req() req: FastifyRequest) {
    if (!(await this.webhooks.delete(caller.tenant, webhookId))) throw new SpindleError('not_found', `no webhook with id "${webhookId}"`);
    await this.audit.record(caller, req, { action: 'webhook.deleted', target: { kind: 'webhook', id: webhookId } });
  }

  private async requireWebhook(caller: Principal, webhookId: string): Promise<Webhook> {
    const webhook = await this.webhooks.find(caller.tenant, webhookId);
    if (!webhook) throw new SpindleError('not_found', `no webhook with id "${webhookId}"`);
    return webhook;
  }
}
