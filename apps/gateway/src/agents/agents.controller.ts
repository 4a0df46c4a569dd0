import { Body, Controller, Delete, Get, HttpCode, Param, Put, Res } from '@nestjs/common';
import { SpindleError } from '@spindle/contracts';
import { agentSpecSchema } from '@spindle/engine';
import type { FastifyReply } from 'fastify';
import { parseBody } from '../http/parse-body';
import { AgentCatalogRepository } from './agent-catalog.repository';

const AGENT_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const agentBodySchema = agentSpecSchema.omit({ name: true });

/** `PUT /v1/agents/{name}`: agents that patterns name with `{ "ref": "<name>" }`. */
@Controller('v1/agents')
export class AgentsController {
  constructor(private readonly agents: AgentCatalogRepository) {}

  @Put(':name')
  async save(@Param('name') name: string, @Body() body: unknown, @Res() reply: FastifyReply) {
    if (!AGENT_NAME.test(name)) throw new SpindleError('validation_failed', 'an agent name is an identifier (letters, digits, _)', { issues: [{ field: 'name', message: 'invalid agent name' }] });
    const spec = { name, ...parseBody(agentBodySchema, body ?? {}) };
    const { version, created } = await this.agents.save(spec);
    return reply.status(created ? 201 : 200).header('location', `/v1/agents/${name}`).send({ name, version, created });
  }

  @Get()
  async list() {
    return { agents: await this.agents.list() };
  }

  @Get(':name')
  async get(@Param('name') name: string) {
    const agent = await this.agents.find(name);
    if (!agent) throw new SpindleError('not_found', `no agent named "${name}"`);
    return agent;
  }

  @Delete(':name')
  @HttpCode(204)
  async remove(@Param('name') name: string) {
    if (!(await this.agents.delete(name))) throw new SpindleError('not_found', `no agent named "${name}"`);
  }
}
