import { Body, Controller, Get, Headers, Param, Post, Req, Res } from '@nestjs/common';
import { forkBodySchema, type Principal, parseBody } from '@spindle/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';
import { RunIdParam } from '../http/path-params';
import { RunForker } from './run-forker.service';
import { checkIdempotencyKey } from '@spindle/control-plane';

/** A run's checkpoints, and forking a run from one of them. */
@Controller('v1/runs/:id')
export class CheckpointsController {
  constructor(
    private readonly forker: RunForker,
    private readonly audit: AuditTrail,
  ) {}

  @Get('checkpoints')
  list(@Param('id', RunIdParam) id: string) {
    return this.forker.checkpoints(id);
  }

  @Post('fork')
  async fork(
    @Caller() caller: Principal,
    @Param('id', RunIdParam) id: string,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const { accepted, replayed } = await this.forker.fork(caller, id, parseBody(forkBodySchema, body ?? {}), checkIdempotencyKey(key));
    if (!replayed) {
      await this.audit.record(caller, req, {
        action: 'run.forked',
        target: { kind: 'run', id: accepted.runId },
        detail: { forkedFrom: accepted.forkedFrom },
      });
    }
    return reply.status(202).header('location', accepted.location).header('idempotent-replayed', String(replayed)).send(accepted);
  }
}
