import { Body, Controller, Delete, Get, HttpCode, Param, Put, Res } from '@nestjs/common';
import { SpindleError } from '@spindle/contracts';
import { validateDefinition } from '@spindle/engine';
import type { FastifyReply } from 'fastify';
import { WorkflowCatalogRepository } from './workflow-catalog.repository';

const WORKFLOW_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

@Controller('v1/workflows')
export class WorkflowsController {
  constructor(private readonly catalog: WorkflowCatalogRepository) {}

  /** Validates and saves a definition as the workflow's next version (201), or 200 when unchanged. */
  @Put(':name')
  async save(@Param('name') name: string, @Body() body: unknown, @Res() reply: FastifyReply) {
    checkName(name);
    validateDefinition(body);
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
