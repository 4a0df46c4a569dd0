import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { requestStatusSchema } from '@spindle/contracts';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { listCursor, listLimit } from '../http/list-query';
import { parseBody } from '../http/parse-body';
import { RequestIdParam, RunIdParam } from '../http/path-params';
import { RunReads } from '../runs/run-reads.service';
import { answerBodySchema } from './answer-body.schema';
import { RequestAnswers } from './request-answers.service';

const inboxQuerySchema = z.strictObject({
  status: requestStatusSchema.optional(),
  limit: listLimit,
  cursor: listCursor.optional(),
});

/** Requests for a person: the inbox across runs, one run's requests, and answering one. */
@Controller('v1')
export class RequestsController {
  constructor(
    private readonly answers: RequestAnswers,
    private readonly reads: RunReads,
  ) {}

  @Get('requests')
  inbox(@Query() query: unknown) {
    return this.answers.list(parseBody(inboxQuerySchema, query, 'query'));
  }

  @Get('runs/:id/requests')
  async ofRun(@Param('id', RunIdParam) id: string) {
    const lastSeq = await this.reads.requireRun(id);
    const { requests } = await this.answers.list({ runId: id, waitForSeq: lastSeq, limit: 200 });
    return { requests };
  }

  /** `202` when the answer was recorded (the run resumes), `200` when the same answer was already there. */
  @Post('runs/:id/requests/:requestId/respond')
  async respond(
    @Param('id', RunIdParam) id: string,
    @Param('requestId', RequestIdParam) requestId: string,
    @Body() body: unknown,
    @Res() reply: FastifyReply,
  ) {
    const outcome = await this.answers.answer(id, requestId, parseBody(answerBodySchema, body ?? {}));
    return reply
      .status(outcome.status === 'recorded' ? 202 : 200)
      .header('location', `/v1/runs/${id}`)
      .send(outcome);
  }
}
