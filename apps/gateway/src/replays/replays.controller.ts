import { Body, Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { type Bus } from '@spindle/bus';
import { newReplayBodySchema, parseBody, SpindleError, type Principal } from '@spindle/contracts';
import { ReplayRepository, replayStartBody, replayWithReports, requireReplayable, RunStarter } from '@spindle/control-plane';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ulid } from 'ulid';
import { BUS } from '@spindle/service-kit';
import { ReplayIdParam, WorkflowNameParam } from '../http/path-params';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';

/**
 * Replays: a workflow's recorded runs re-driven through one of its versions, each a run of its own
 * whose calls are answered from the recording where they are the same; the report says where each
 * first went another way. The recorded runs are only read.
 */
@Controller('v1')
export class ReplaysController {
  constructor(
    private readonly replays: ReplayRepository,
    private readonly starter: RunStarter,
    private readonly audit: AuditTrail,
    @Inject(BUS) private readonly bus: Bus,
  ) {}

  /** `201` once every recorded run and every start is checked (all or none); the dispatcher starts the runs. */
  @Post('workflows/:name/replays')
  async create(
    @Caller() caller: Principal,
    @Param('name', WorkflowNameParam) name: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const asked = parseBody(newReplayBodySchema, body);
    const repeated = asked.runs.findIndex((id, i) => asked.runs.indexOf(id) !== i);
    if (repeated !== -1)
      throw new SpindleError('validation_failed', `run ${asked.runs[repeated]} is named twice`, {
        issues: [{ field: `runs[${repeated}]`, message: 'named twice' }],
      });
    const { version } = await this.starter.check(caller, name, asked.version === undefined ? {} : { version: asked.version });
    const sources = [];
    for (const [i, runId] of asked.runs.entries()) {
      const queued = await requireReplayable(this.bus, caller.tenant, name, runId, `runs[${i}]`);
      // The start each replay run will make, checked now: the version's parameters may refuse a recorded run's.
      await this.starter.check(caller, name, replayStartBody(queued, version));
      sources.push({ sourceRunId: runId, runId: ulid() });
    }
    const replayId = `rpl_${ulid()}`;
    await this.replays.create({
      replayId,
      tenant: caller.tenant,
      caller,
      workflow: { name, version },
      onDivergence: asked.onDivergence,
      runs: sources,
    });
    await this.audit.record(caller, req, {
      action: 'replay.started',
      target: { kind: 'replay', id: replayId },
      detail: { workflow: name, version, runs: sources.length, onDivergence: asked.onDivergence },
    });
    const replay = await replayWithReports(this.bus, await this.replays.get(caller.tenant, replayId));
    return reply.status(201).header('location', `/v1/replays/${replayId}`).send(replay);
  }

  @Get('replays')
  async list(@Caller() caller: Principal) {
    return { replays: await this.replays.list(caller.tenant) };
  }

  /** Each run's report, read from the logs as they are now: `pending` until its replay ended. */
  @Get('replays/:replayId')
  async get(@Caller() caller: Principal, @Param('replayId', ReplayIdParam) id: string) {
    return replayWithReports(this.bus, await this.replays.get(caller.tenant, id));
  }
}
