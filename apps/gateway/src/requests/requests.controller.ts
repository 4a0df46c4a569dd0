import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { answerBodySchema, requestsListQuerySchema, type Principal, parseBody } from '@spindle/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';
import { requireIssuedCursor } from '../http/list-query';
import { RequestIdParam, RunIdParam } from '../http/path-params';
import { RunReads } from '../runs/run-reads.service';
import { RequestAnswers } from './request-answers.service';

/** Requests for a person: the inbox across runs, one run's requests, and answering one. */
@Controller('v1')
export class RequestsController {
  constructor(
    private readonly answers: RequestAnswers,
    private readonly reads: RunReads,
    private readonly audit: AuditTrail,
  ) {}

  @Get('requests')
  inbox(@Caller() caller: Principal, @Query() query: unknown) {
    return this.answers.list({ ...requireIssuedCursor(parseBody(requestsListQuerySchema, query, 'query')), tenant: caller.tenant });
  }

  @Get('runs/:id/requests')
  async ofRun(@Caller() caller: Principal, @Param('id', RunIdParam) id: string) {
    const lastSeq = await this.reads.requireRun(id);
    const { requests } = await this.answers.list({ tenant: caller.tenant, runId: id, waitForSeq: lastSeq, limit: 200 });
    return { requests };
  }

  /** `202` when the answer was recorded (the run resumes), `200` when the same answer was already there. */
  @Post('runs/:id/requests/:requestId/respond')
  async respond(
    @Caller() caller: Principal,
    @Param('id', RunIdParam) id: string,
    @Param('requestId', RequestIdParam) requestId: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const answer = parseBody(answerBodySchema, body ?? {});
    const outcome = await this.answers.answer(caller, id, requestId, answer);
    if (outcome.status === 'recorded') {
      await this.audit.record(caller, req, {
        action: 'request.answered',
        target: { kind: 'request', id: requestId },
        detail: { runId: id, seq: outcome.seq, ...(answer.decision && { decision: answer.decision }) },
      });
    }
    return reply
      .status(outcome.status === 'recorded' ? 202 : 200)
      .header('location', `/v1/runs/${id}`)
      .send(outcome);
  }
}
