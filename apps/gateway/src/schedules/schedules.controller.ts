import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import {
  newScheduleBodySchema,
  SpindleError,
  type Principal,
  type Schedule,
  type ScheduleFirings,
  type ScheduleList,
  parseBody,
} from '@spindle/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ulid } from 'ulid';
import type { GatewayConfig } from '../gateway.config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { ScheduleIdParam } from '../http/path-params';
import { refuseNulCharacters } from '../http/storable-json';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';
import { query, type Bus } from '@spindle/bus';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from 'pino';
import { parseCron, ScheduleRepository, type ScheduleRow, scheduleView, WorkflowCatalogRepository } from '@spindle/control-plane';

/** Schedules: a workflow run on a cron, in a time zone; every firing a normal run. */
@Controller('v1/schedules')
export class SchedulesController {
  constructor(
    private readonly schedules: ScheduleRepository,
    private readonly catalog: WorkflowCatalogRepository,
    private readonly audit: AuditTrail,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(BUS) private readonly bus: Bus,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Post()
  async create(@Caller() caller: Principal, @Body() body: unknown, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    refuseNulCharacters(body);
    const asked = parseBody(newScheduleBodySchema, body ?? {});
    const cron = parseCron(asked.cron, asked.timezone, this.config.scheduleMinIntervalMs);
    if (!(await this.catalog.find(caller.tenant, asked.workflow, asked.version)))
      throw new SpindleError(
        asked.version !== undefined && (await this.catalog.find(caller.tenant, asked.workflow))
          ? 'version_not_found'
          : 'workflow_not_found',
        `no ${asked.version !== undefined ? `version ${asked.version} of ` : ''}workflow "${asked.workflow}"`,
      );
    const scheduleId = `sch_${ulid()}`;
    await this.schedules.create({ id: scheduleId, tenant: caller.tenant, ...asked, nextFireAt: cron.nextRun(new Date()), caller });
    await this.audit.record(caller, req, {
      action: 'schedule.created',
      target: { kind: 'schedule', id: scheduleId },
      detail: { cron: asked.cron, timezone: asked.timezone, workflow: asked.workflow },
    });
    return reply
      .status(201)
      .header('location', `/v1/schedules/${scheduleId}`)
      .send(scheduleView(await this.requireSchedule(caller, scheduleId)));
  }

  @Get()
  async list(@Caller() caller: Principal): Promise<ScheduleList> {
    return { schedules: (await this.schedules.list(caller.tenant)).map((s) => scheduleView(s)) };
  }

  @Get(':scheduleId')
  async get(@Caller() caller: Principal, @Param('scheduleId', ScheduleIdParam) scheduleId: string): Promise<Schedule> {
    return scheduleView(await this.requireSchedule(caller, scheduleId));
  }

  /** Newest first: each firing time, and whether it started a run, was skipped, failed, or waits. */
  @Get(':scheduleId/firings')
  async firings(@Caller() caller: Principal, @Param('scheduleId', ScheduleIdParam) scheduleId: string): Promise<ScheduleFirings> {
    await this.requireSchedule(caller, scheduleId);
    return { scheduleId, firings: await this.schedules.firings(scheduleId) };
  }

  /** Stops firing; firings missed while paused are not made up. */
  @Post(':scheduleId/pause')
  @HttpCode(200)
  async pause(@Caller() caller: Principal, @Param('scheduleId', ScheduleIdParam) scheduleId: string, @Req() req: FastifyRequest) {
    const s = await this.requireSchedule(caller, scheduleId);
    await this.schedules.setPaused(s.id, true, s.next_fire_at);
    await this.audit.record(caller, req, { action: 'schedule.paused', target: { kind: 'schedule', id: scheduleId } });
    return scheduleView(await this.requireSchedule(caller, scheduleId));
  }

  @Post(':scheduleId/resume')
  @HttpCode(200)
  async resume(@Caller() caller: Principal, @Param('scheduleId', ScheduleIdParam) scheduleId: string, @Req() req: FastifyRequest) {
    const s = await this.requireSchedule(caller, scheduleId);
    await this.schedules.setPaused(s.id, false, parseCron(s.cron, s.timezone, 0).nextRun(new Date()));
    await this.audit.record(caller, req, { action: 'schedule.resumed', target: { kind: 'schedule', id: scheduleId } });
    return scheduleView(await this.requireSchedule(caller, scheduleId));
  }

  /**
   * A firing now, besides the cron's (`202`): decided like any other, by the overlap policy. It is
   * recorded here and made by the dispatcher, asked to make it now; if none answers, its tick makes
   * it once one runs, so the 202 stands.
   */
  @Post(':scheduleId/trigger')
  @HttpCode(202)
  async trigger(@Caller() caller: Principal, @Param('scheduleId', ScheduleIdParam) scheduleId: string, @Req() req: FastifyRequest) {
    const s = await this.requireSchedule(caller, scheduleId);
    const fireAt = new Date();
    await this.schedules.addFirings(this.schedules.db, s.id, [fireAt]);
    await this.audit.record(caller, req, { action: 'schedule.triggered', target: { kind: 'schedule', id: scheduleId } });
    await query(this.bus, 'dispatcher', 'fireDue', {}, this.config.projectionWaitMs).catch((err: unknown) =>
      this.logger.warn({ err, scheduleId }, 'the dispatcher did not answer a trigger; its next pass makes the firing'),
    );
    return { scheduleId, fireAt: fireAt.toISOString() };
  }

  @Delete(':scheduleId')
  @HttpCode(204)
  async remove(@Caller() caller: Principal, @Param('scheduleId', ScheduleIdParam) scheduleId: string, @Req() req: FastifyRequest) {
    if (!(await this.schedules.delete(caller.tenant, scheduleId)))
      throw new SpindleError('not_found', `no schedule with id "${scheduleId}"`);
    await this.audit.record(caller, req, { action: 'schedule.deleted', target: { kind: 'schedule', id: scheduleId } });
  }

  private async requireSchedule(caller: Principal, scheduleId: string): Promise<ScheduleRow> {
    const s = await this.schedules.find(caller.tenant, scheduleId);
    if (!s) throw new SpindleError('not_found', `no schedule with id "${scheduleId}"`);
    return s;
  }
}
