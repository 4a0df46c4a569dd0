import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query, Res } from '@nestjs/common';
import { SpindleError } from '@spindle/contracts';
import { describeGraph, toGraph, validateDefinition } from '@spindle/engine';
import type { FastifyReply } from 'fastify';
import { AgentCatalogRepository } from '../agents/agent-catalog.repository';
import { resolveAgentRefs } from '../agents/agent-refs.resolver';
import { resolveSubgraphs } from './subgraph-resolver';
import { WorkflowCatalogRepository } from './workflow-catalog.repository';

const WORKFLOW_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

@Controller('v1/workflows')
export class WorkflowsController {
  constructor(private readonly catalog: WorkflowCatalogRepository, private readonly agents: AgentCatalogRepository) {}

  /** Validates and saves a definition as the workflow's next version (201), or 200 when unchanged. */
  @Put(':name')
  async save(@Param('name') name: string, @Body() body: unknown, @Res() reply: FastifyReply) {
    checkName(name);
    // Referenced agents and called workflows must exist when saved (and are resolved again when a run is queued).
    const prepare = (stored: unknown) => resolveAgentRefs(this.agents, stored);
    await resolveSubgraphs(this.catalog, { name, definition: validateDefinition(await prepare(body)) }, prepare);
    const { version, created } = await this.catalog.save(name, body);
    return reply.status(created ? 201 : 200).header('location', `/v1/workflows/${name}`).send({ name, version, created });
  }

  @Get()
  async list() {
    return { workflows: await this.catalog.list() };
  }

  @Get(':name')
  async get(@Param('name') name: string) {
    const workflow = await this.catalog.find(name);
    if (!workflow) throw new SpindleError('workflow_not_found', `no workflow named "${name}"`);
    return workflow;
  }

  /** Nodes, edges, layout hints and Mermaid text of the latest (or `?version=`) definition. */
  @Get(':name/graph')
  async graph(@Param('name') name: string, @Query('version') version?: string) {
    const number = version === undefined ? undefined : Number(version);
    if (number !== undefined && (!Number.isInteger(number) || number < 1)) {
      throw new SpindleError('validation_failed', 'version must be a positive integer', { issues: [{ field: 'query.version', message: 'not a version number' }] });
    }
    const workflow = await this.catalog.find(name, number);
    if (!workflow) throw new SpindleError(number !== undefined && (await this.catalog.find(name)) ? 'version_not_found' : 'workflow_not_found', `no ${number ? `version ${number} of ` : ''}workflow "${name}"`);
    return { name, version: workflow.version, ...describeGraph(toGraph(validateDefinition(await resolveAgentRefs(this.agents, workflow.definition)))) };
  }

  @Get(':name/versions')
  async versions(@Param('name') name: string) {
    if (!(await this.catalog.find(name))) throw new SpindleError('workflow_not_found', `no workflow named "${name}"`);
    return { name, versions: await this.catalog.versions(name) };
  }

  @Delete(':name')
  @HttpCode(204)
  async remove(@Param('name') name: string) {
    if (!(await this.catalog.delete(name))) throw new SpindleError('workflow_not_found', `no workflow named "${name}"`);
  }
}

function checkName(name: string) {
  if (!WORKFLOW_NAME.test(name)) {
    throw new SpindleError('validation_failed', 'a workflow name is 1-63 lower-case letters, digits, _ or -, starting with a letter or digit', {
      issues: [{ field: 'name', message: 'invalid workflow name' }],
    });
  }
}
