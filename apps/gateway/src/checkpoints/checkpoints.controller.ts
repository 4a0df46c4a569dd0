import { Body, Controller, Get, Headers, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { parseBody } from '../http/parse-body';
import { RunIdParam } from '../http/path-params';
import { checkIdempotencyKey } from '../runs/idempotent-creation';
import { forkBodySchema, RunForker } from './run-forker.service';

/** A run's checkpoints, and forking a run from one of them. */
@Controller('v1/runs/:id')
export class CheckpointsController {
  constructor(private readonly forker: RunForker) {}

  @Get('checkpoints')
  list(@Param('id', RunIdParam) id: string) {
    return this.forker.checkpoints(id);
  }

  @Post('fork')
  async fork(
    @Param('id', RunIdParam) id: string,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    const { accepted, replayed } = await this.forker.fork(id, parseBody(forkBodySchema, body ?? {}), checkIdempotencyKey(key));
    return reply.status(202).header('location', accepted.location).header('idempotent-replayed', String(replayed)).send(accepted);
  }
}
