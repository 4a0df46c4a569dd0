import { Body, Controller, Get, Headers, Param, Post, Req, Res } from '@nestjs/common';
import type { Principal } from '@spindle/contracts';
import { checkIdempotencyKey, EvaluationRepository } from '@spindle/control-plane';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RunIdParam } from '../http/path-params';
import { refuseNulCharacters } from '../http/storable-json';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';
import { RunScores } from './run-scores';

/** Scores of a run (the route checked the run is the caller's tenant's). */
@Controller('v1')
export class ScoresController {
  constructor(
    private readonly scores: RunScores,
    private readonly audit: AuditTrail,
    private readonly evaluationRows: EvaluationRepository,
  ) {}

  /** `201` with the new score; `200` with the stored one when an Idempotency-Key repeats the request. */
  @Post('runs/:id/scores')
  async record(
    @Caller() caller: Principal,
    @Param('id', RunIdParam) id: string,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    refuseNulCharacters(body);
    const { score, created } = await this.scores.record(caller, id, body, checkIdempotencyKey(key));
    if (created) {
      await this.audit.record(caller, req, {
        action: 'score.recorded',
        target: { kind: 'run', id },
        detail: { scoreId: score.scoreId, name: score.name, spanId: score.spanId },
      });
    }
    return reply
      .status(created ? 201 : 200)
      .header('idempotent-replayed', String(!created))
      .send(score);
  }

  @Get('runs/:id/scores')
  list(@Caller() caller: Principal, @Param('id', RunIdParam) id: string) {
    return this.scores.list(caller, id);
  }

  /** What the run's evaluators made of it (pending, done with a score, failed with why). */
  @Get('runs/:id/evaluations')
  async evaluations(@Caller() caller: Principal, @Param('id', RunIdParam) id: string) {
    return { evaluations: await this.evaluationRows.ofRun(caller.tenant, id) };
  }
}
