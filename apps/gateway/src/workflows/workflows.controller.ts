import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query, Res } from '@nestjs/common';
import { SpindleError } from '@spindle/contracts';
import { describeGraph, toGraph, validateDefinition } from '@spindle/engine';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { AgentCatalogRepository } from '../agents/agent-catalog.repository';
import { resolveAgentRefs } from '../agents/agent-refs.resolver';
import { MAX_VERSION, queryInteger } from '../http/decimal-integer';
import { parseBody } from '../http/parse-body';
import { NewWorkflowNameParam, WorkflowNameParam } from '../http/path-params';
import { refuseNulCharacters } from '../http/storable-json';
import { resolveSubgraphs } from './subgraph-resolver';
import { WorkflowCatalogRepository } from './workflow-catalog.repository';

const graphQuerySchema = z.strictObject({ version: queryInteger({ min: 1, max: MAX_VERSION }).optional() });

@Controller('v1/workflows')
export class WorkflowsController {
  constructor(
    private readonly catalog: WorkflowCatalogRepository,
    private readonly agents: AgentCatalogRepository,
  ) {}

  /** Validates and saves a definition as the workflow's next version (201), or 200 when unchanged. */
  @Put(':name')
  async save(@Param('name', NewWorkflowNameParam) name: string, @Body() body: unknown, @Res() reply: FastifyReply) {
    refuseNulCharacters(body);
    // Referenced agents and called workflows must exist when saved (and are resolved again when a run is queued).
    const prepare = (stored: unknown) => resolveAgentRefs(this.agents, stored);
    await resolveSubgraphs(this.catalog, { name, definition: validateDefinition(await prepare(body)) }, prepare);
    const { version, created } = await this.catalog.save(name, body);
    return reply
      .status(created ? 201 : 200)
      .header('location', `/v1/workflows/${name}`)
      .send({ name, version, created });
  }

  @Get()
  async list() {
    return { workflows: await this.catalog.list() };
  }

  @Get(':name')
  async get(@Param('name', WorkflowNameParam) name: string) {
    const workflow = await this.catalog.find(name);
    if (!workflow) throw new SpindleError('workflow_not_found', `no workflow named "${name}"`);
    return workflow;
  }

  /** Nodes, edges, layout hints and Mermaid text of the latest (or `?version=`) definition. */
  @Get(':name/graph')
  async graph(@Param('name', WorkflowNameParam) name: string, @Query() query: unknown) {
    const { version } = parseBody(graphQuerySchema, query, 'query');
    const workflow = await this.catalog.find(name, version);
    if (!workflow)
      throw new SpindleError(
        version !== undefined && (await this.catalog.find(name)) ? 'version_not_found' : 'workflow_not_found',
        `no ${version ? `version ${version} of ` : ''}workflow "${name}"`,
      );
    return {
      name,
      version: workflow.version,
      ...describeGraph(toGraph(validateDefinition(await resolveAgentRefs(this.agents, workflow.definition)))),
    };
  }

  @Get(':name/versions')
  async versions(@Param('name', WorkflowNameParam) name: string) {
    if (!(await this.catalog.find(name))) throw new SpindleError('workflow_not_found', `no workflow named "${name}"`);
    return { name, versions: await this.catalog.versions(name) };
  }

  @Delete(':name')
  @HttpCode(204)
  async remove(@Param('name', WorkflowNameParam) name: string) {
    if (!(await this.catalog.delete(name))) throw new SpindleError('workflow_not_found', `no workflow named "${name}"`);
  }
}
