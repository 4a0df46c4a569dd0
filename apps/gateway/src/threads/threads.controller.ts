import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  newThreadBodySchema,
  SpindleError,
  threadsListQuerySchema,
  type Principal,
  type Thread,
  type ThreadList,
  type ThreadRuns as ThreadRunsView,
  type ThreadState,
  parseBody,
} from '@spindle/contracts';
import { decodeKeysetCursor, encodeKeysetCursor } from '@spindle/db';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ulid } from 'ulid';
import { requireIssuedCursor } from '../http/list-query';
import { ThreadIdParam } from '../http/path-params';
import { traceContextOf } from '../http/request-tracing';
import { refuseNulCharacters } from '../http/storable-json';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';
import { ThreadRepository, threadRunView } from '@spindle/control-plane';
import { ThreadRuns } from './thread-runs.service';

/** Threads: conversations across runs, each run starting from the state the ones before it left. */
@Controller('v1/threads')
export class ThreadsController {
  constructor(
    private readonly threads: ThreadRepository,
    private readonly runs: ThreadRuns,
    private readonly audit: AuditTrail,
  ) {}

  @Post()
  async create(@Caller() caller: Principal, @Body() body: unknown, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    refuseNulCharacters(body);
    const { metadata } = parseBody(newThreadBodySchema, body ?? {});
    const threadId = `thr_${ulid()}`;
    await this.threads.create(threadId, caller.tenant, metadata ?? {}, caller.actor);
    await this.audit.record(caller, req, { action: 'thread.created', target: { kind: 'thread', id: threadId } });
    const thread = await this.requireThread(caller, threadId);
    return reply.status(201).header('location', `/v1/threads/${threadId}`).send(thread);
  }

  @Get()
  async list(@Caller() caller: Principal, @Query() query: unknown): Promise<ThreadList> {
    const { limit, cursor } = requireIssuedCursor(parseBody(threadsListQuerySchema, query, 'query'));
    const threads = await this.threads.list(caller.tenant, limit, cursor ? decodeKeysetCursor(cursor) : undefined);
    const last = threads.at(-1);
    return {
      threads,
      nextCursor: threads.length === limit && last ? encodeKeysetCursor({ at: last.createdAt, id: last.threadId }) : null,
    };
  }

  @Get(':threadId')
  get(@Caller() caller: Principal, @Param('threadId', ThreadIdParam) threadId: string): Promise<Thread> {
    return this.requireThread(caller, threadId);
  }

  @Get(':threadId/state')
  async state(@Caller() caller: Principal, @Param('threadId', ThreadIdParam) threadId: string): Promise<ThreadState> {
    await this.requireThread(caller, threadId);
    const { state, fromRun } = await this.threads.state(threadId);
    return { threadId, state, stateFromRun: fromRun };
  }

  /** Merges `values` into the state (or replaces it), recorded in the log as a run of its own and audited. */
  @Post(':threadId/state')
  @HttpCode(200)
  async setState(
    @Caller() caller: Principal,
    @Param('threadId', ThreadIdParam) threadId: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
  ): Promise<ThreadState> {
    refuseNulCharacters(body);
    const changed = await this.runs.setState(caller, threadId, body);
    await this.audit.record(caller, req, {
      action: 'thread.state_changed',
      target: { kind: 'thread', id: threadId },
      detail: { runId: changed.stateFromRun, mode: (body as { mode?: string } | null)?.mode ?? 'merge' },
    });
    return changed;
  }

  @Get(':threadId/runs')
  async history(@Caller() caller: Principal, @Param('threadId', ThreadIdParam) threadId: string): Promise<ThreadRunsView> {
    await this.requireThread(caller, threadId);
    return { threadId, runs: (await this.threads.runs(threadId)).map(threadRunView) };
  }

  /** `202`: started at once (`queued`), or waiting for the thread's runs before it (`pending`). */
  @Post(':threadId/runs')
  async start(
    @Caller() caller: Principal,
    @Param('threadId', ThreadIdParam) threadId: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    refuseNulCharacters(body);
    const accepted = await this.runs.start(caller, threadId, body, traceContextOf(req));
    return reply.status(202).header('location', accepted.location).send(accepted);
  }

  private async requireThread(caller: Principal, threadId: string): Promise<Thread> {
    const thread = await this.threads.find(caller.tenant, threadId);
    if (!thread) throw new SpindleError('thread_not_found', `no thread with id "${threadId}"`);
    return thread;
  }
}
