import { Body, Controller, Get, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { parseBody } from '../http/parse-body';
import { forkBodySchema, RunForker } from './run-forker.service';

/** A run's checkpoints, and forking a run from one of them. */
@Controller('v1/runs/:id')
export class CheckpointsController {
  constructor(private readonly forker: RunForker) {}

  @Get('checkpoints')
  list(@Param('id') id: string) {
    return this.forker.checkpoints(id);
  }

  @Post('fork')
  async fork(@Param('id') id: string, @Body() body: unknown, @Res() reply: FastifyReply) {
    const accepted = await this.forker.fork(id, parseBody(forkBodySchema, body ?? {}));
    return reply.status(202).header('location', accepted.location).send(accepted);
  }
}
