import { Body, Controller, Delete, Get, HttpCode, Param, Put, Res } from '@nestjs/common';
import { SpindleError } from '@spindle/contracts';
import { agentSpecSchema } from '@spindle/engine';
import type { FastifyReply } from 'fastify';
import { parseBody } from '../http/parse-body';
import { AgentNameParam, NewAgentNameParam } from '../http/path-params';
import { refuseNulCharacters } from '../http/storable-json';
import { AgentCatalogRepository } from './agent-catalog.repository';

const agentBodySchema = agentSpecSchema.omit({ name: true });

/** `PUT /v1/agents/{name}`: agents that patterns name with `{ "ref": "<name>" }`. */
@Controller('v1/agents')
export class AgentsController {
  constructor(private readonly agents: AgentCatalogRepository) {}

  @Put(':name')
  async save(@Param('name', NewAgentNameParam) name: string, @Body() body: unknown, @Res() reply: FastifyReply) {
    refuseNulCharacters(body);
    const spec = { name, ...parseBody(agentBodySchema, body ?? {}) };
    const { version, created } = await this.agents.save(spec);
    return reply
      .status(created ? 201 : 200)
      .header('location', `/v1/agents/${name}`)
      .send({ name, version, created });
  }

  @Get()
  async list() {
    return { agents: await this.agents.list() };
  }

  @Get(':name')
  async get(@Param('name', AgentNameParam) name: string) {
    const agent = await this.agents.find(name);
    if (!agent) throw new SpindleError('not_found', `no agent named "${name}"`);
    return agent;
  }

  @Delete(':name')
  @HttpCode(204)
  async remove(@Param('name', AgentNameParam) name: string) {
    if (!(await this.agents.delete(name))) throw new SpindleError('not_found', `no agent named "${name}"`);
  }
}
