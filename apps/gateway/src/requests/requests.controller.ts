import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { requestStatusSchema } from '@spindle/contracts';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { parseBody } from '../http/parse-body';
import { RunReads } from '../runs/run-reads.service';
import { answerBodySchema } from './answer-body.schema';
import { RequestAnswers } from './request-answers.service';

const inboxQuerySchema = z.strictObject({
  status: requestStatusSchema.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(500).optional(),
});

/** Requests for a person: the inbox across runs, one run's requests, and answering one. */
@Controller('v1')
export class RequestsController {
  constructor(private readonly answers: RequestAnswers, private readonly reads: RunReads) {}

  @Get('requests')
  inbox(@Query() query: unknown) {
    return this.answers.list(parseBody(inboxQuerySchema, query, 'query'));
  }

  @Get('runs/:id/requests')
  async ofRun(@Param('id') id: string) {
    const lastSeq = await this.reads.requireRun(id);
    const { requests } = await this.answers.list({ runId: id, waitForSeq: lastSeq, limit: 200 });
    return { requests };
  }

  /** `202` when the answer was recorded (the run resumes), `200` when the same answer was already there. */
  @Post('runs/:id/requests/:requestId/respond')
  async respond(@Param('id') id: string, @Param('requestId') requestId: string, @Body() body: unknown, @Res() reply: FastifyReply) {
    const outcome = await this.answers.answer(id, requestId, parseBody(answerBodySchema, body ?? {}));
    return reply.status(outcome.status === 'recorded' ? 202 : 200).header('location', `/v1/runs/${id}`).send(outcome);
  }
}
