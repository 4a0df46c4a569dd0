import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  CAPABILITY_CHECK_HEADER,
  capabilityCheckQuerySchema,
  rollbackBodySchema,
  workflowVersionQuerySchema,
  SpindleError,
  type CatalogDiff,
  type Principal,
  parseBody,
} from '@spindle/contracts';
import { describeGraph, diffVersions, toGraph, validateDefinition } from '@spindle/engine';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NewWorkflowNameParam, VersionParam, WorkflowNameParam } from '../http/path-params';
import { refuseNulCharacters } from '../http/storable-json';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';
import { RunnerCapabilitiesService } from '../capabilities/runner-capabilities.service';
import { AgentCatalogRepository, resolveAgentRefs, resolveSubgraphs, WorkflowCatalogRepository } from '@spindle/control-plane';

/** The caller's tenant's workflow catalog. */
@Controller('v1/workflows')
export class WorkflowsController {
  constructor(
    private readonly catalog: WorkflowCatalogRepository,
    private readonly agents: AgentCatalogRepository,
    private readonly audit: AuditTrail,
    private readonly capabilities: RunnerCapabilitiesService,
  ) {}

  /**
   * Validates and saves a definition as the workflow's next version (201), or 200 when unchanged.
   * The functions and tools it names must be ones a live runner has, unless `?check=definition-only`.
   */
  @Put(':name')
  async save(
    @Caller() caller: Principal,
    @Param('name', NewWorkflowNameParam) name: string,
    @Body() body: unknown,
    @Query() query: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    refuseNulCharacters(body);
    const { check } = parseBody(capabilityCheckQuerySchema, query, 'query');
    const { version, created, checked } = await this.saveDefinition(caller.tenant, name, body, check);
    if (created)
      await this.audit.record(caller, req, { action: 'workflow.saved', target: { kind: 'workflow', id: name }, detail: { version } });
    return reply
      .status(created ? 201 : 200)
      .header('location', `/v1/workflows/${name}`)
      .header(CAPABILITY_CHECK_HEADER, checked)
      .send({ name, version, created });
  }

  /**
   * Saves an earlier version's definition as the next version (201), checked like a save: the
   * agents and workflows it names must still exist, its functions and tools a live runner must
   * have (unless `?check=definition-only`). 200 when it already is the latest.
   */
  @Post(':name/rollback')
  async rollback(
    @Caller() caller: Principal,
    @Param('name', WorkflowNameParam) name: string,
    @Body() body: unknown,
    @Query() query: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const { check } = parseBody(capabilityCheckQuerySchema, query, 'query');
    const { version: to } = parseBody(rollbackBodySchema, body);
    const old = await this.findVersion(caller.tenant, name, to);
    const { version, created, checked } = await this.saveDefinition(caller.tenant, name, old.definition, check);
    if (created)
      await this.audit.record(caller, req, {
        action: 'workflow.rolled_back',
        target: { kind: 'workflow', id: name },
        detail: { version, rolledBackTo: to },
      });
    return reply
      .status(created ? 201 : 200)
      .header('location', `/v1/workflows/${name}`)
      .header(CAPABILITY_CHECK_HEADER, checked)
      .send({ name, version, created, rolledBackTo: to });
  }

  @Get()
  async list(@Caller() caller: Principal) {
    return { workflows: await this.catalog.list(caller.tenant) };
  }

  /** The latest (or `?version=`) definition. */
  @Get(':name')
  async get(@Caller() caller: Principal, @Param('name', WorkflowNameParam) name: string, @Query() query: unknown) {
    const { version } = parseBody(workflowVersionQuerySchema, query, 'query');
    return this.findVersion(caller.tenant, name, version);
  }

  /** Nodes, edges, layout hints and Mermaid text of the latest (or `?version=`) definition. */
  @Get(':name/graph')
  async graph(@Caller() caller: Principal, @Param('name', WorkflowNameParam) name: string, @Query() query: unknown) {
    const { version } = parseBody(workflowVersionQuerySchema, query, 'query');
    const workflow = await this.findVersion(caller.tenant, name, version);
    return {
      name,
      version: workflow.version,
      ...describeGraph(toGraph(validateDefinition(await resolveAgentRefs(this.agents, caller.tenant, workflow.definition)))),
    };
  }

  @Get(':name/versions')
  async versions(@Caller() caller: Principal, @Param('name', WorkflowNameParam) name: string) {
    if (!(await this.catalog.find(caller.tenant, name))) throw new SpindleError('workflow_not_found', `no workflow named "${name}"`);
    return { name, versions: await this.catalog.versions(caller.tenant, name) };
  }

  /** What changed from one version to another: nodes, edges and fields, and a text diff. */
  @Get(':name/versions/:from/diff/:to')
  async diff(
    @Caller() caller: Principal,
    @Param('name', WorkflowNameParam) name: string,
    @Param('from', VersionParam) from: number,
    @Param('to', VersionParam) to: number,
  ): Promise<CatalogDiff> {
    const before = await this.findVersion(caller.tenant, name, from);
    const after = await this.findVersion(caller.tenant, name, to);
    return {
      name,
      from,
      to,
      ...diffVersions(before.definition, after.definition, { before: `${name} v${from}`, after: `${name} v${to}` }),
    };
  }

  @Delete(':name')
  @HttpCode(204)
  async remove(@Caller() caller: Principal, @Param('name', WorkflowNameParam) name: string, @Req() req: FastifyRequest) {
    if (!(await this.catalog.delete(caller.tenant, name))) throw new SpindleError('workflow_not_found', `no workflow named "${name}"`);
    await this.audit.record(caller, req, { action: 'workflow.deleted', target: { kind: 'workflow', id: name } });
  }

  /**
   * Validates a definition (the agents and workflows it names must exist, the functions and tools
   * a live runner must have) and saves it as the next version.
   */
  private async saveDefinition(tenant: string, name: string, definition: unknown, check: 'full' | 'definition-only') {
    const prepare = (stored: unknown) => resolveAgentRefs(this.agents, tenant, stored);
    const validated = validateDefinition(await prepare(definition));
    await resolveSubgraphs(this.catalog, tenant, { name, definition: validated }, prepare);
    const checked = await this.capabilities.check(validated, check);
    return { ...(await this.catalog.save(tenant, name, definition)), checked };
  }

  /** The named version, or the latest without one; a workflow without that version and an unknown workflow are told apart. */
  private async findVersion(tenant: string, name: string, version?: number) {
    const found = await this.catalog.find(tenant, name, version);
    if (found) return found;
    if (version === undefined || !(await this.catalog.find(tenant, name)))
      throw new SpindleError('workflow_not_found', `no workflow named "${name}"`);
    throw new SpindleError('version_not_found', `workflow "${name}" has no version ${version}`);
  }
}
