import { Body, Controller, Delete, Get, HttpCode, Param, Put, Req, Res } from '@nestjs/common';
import { SpindleError, type Principal } from '@spindle/contracts';
import { agentBodySchema } from '@spindle/engine';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../http/parse-body';
import { AgentNameParam, NewAgentNameParam } from '../http/path-params';
import { refuseNulCharacters } from '../http/storable-json';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';
import { AgentCatalogRepository } from './agent-catalog.repository';

/** `PUT /v1/agents/{name}`: the tenant's agents that patterns name with `{ "ref": "<name>" }`. */
@Controller('v1/agents')
export class AgentsController {
  constructor(
    private readonly agents: AgentCatalogRepository,
    private readonly audit: AuditTrail,
  ) {}

  @Put(':name')
  async save(
    @Caller() caller: Principal,
    @Param('name', NewAgentNameParam) name: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    refuseNulCharacters(body);
    const spec = { name, ...parseBody(agentBodySchema, body ?? {}) };
    const { version, created } = await this.agents.save(caller.tenant, spec);
    if (created) await this.audit.record(caller, req, { action: 'agent.saved', target: { kind: 'agent', id: name }, detail: { version } });
    return reply
      .status(created ? 201 : 200)
      .header('location', `/v1/agents/${name}`)
      .send({ name, version, created });
  }

  @Get()
  async list(@Caller() caller: Principal) {
    return { agents: await this.agents.list(caller.tenant) };
  }

  @Get(':name')
  async get(@Caller() caller: Principal, @Param('name', AgentNameParam) name: string) {
    const agent = await this.agents.find(caller.tenant, name);
    if (!agent) throw new SpindleError('not_found', `no agent named "${name}"`);
    return agent;
  }

  @Delete(':name')
  @HttpCode(204)
  async remove(@Caller() caller: Principal, @Param('name', AgentNameParam) name: string, @Req() req: FastifyRequest) {
    if (!(await this.agents.delete(caller.tenant, name))) throw new SpindleError('not_found', `no agent named "${name}"`);
    await this.audit.record(caller, req, { action: 'agent.deleted', target: { kind: 'agent', id: name } });
  }
}
