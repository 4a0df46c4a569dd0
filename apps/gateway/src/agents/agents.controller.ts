import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Req, Res } from '@nestjs/common';
import { rollbackBodySchema, SpindleError, type CatalogDiff, type Principal, parseBody } from '@spindle/contracts';
import { agentBodySchema, agentSpecSchema, diffVersions } from '@spindle/engine';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AgentNameParam, NewAgentNameParam, VersionParam } from '../http/path-params';
import { refuseNulCharacters } from '../http/storable-json';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';
import { AgentCatalogRepository } from '@spindle/control-plane';

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
  get(@Caller() caller: Principal, @Param('name', AgentNameParam) name: string) {
    return this.requireAgent(caller.tenant, name);
  }

  @Delete(':name')
  @HttpCode(204)
  async remove(@Caller() caller: Principal, @Param('name', AgentNameParam) name: string, @Req() req: FastifyRequest) {
    if (!(await this.agents.delete(caller.tenant, name))) throw new SpindleError('not_found', `no agent named "${name}"`);
    await this.audit.record(caller, req, { action: 'agent.deleted', target: { kind: 'agent', id: name } });
  }

  /** Newest first. */
  @Get(':name/versions')
  async versions(@Caller() caller: Principal, @Param('name', AgentNameParam) name: string) {
    await this.requireAgent(caller.tenant, name);
    return { name, versions: await this.agents.versions(caller.tenant, name) };
  }

  /** What changed from one version of the spec to another, and a text diff. */
  @Get(':name/versions/:from/diff/:to')
  async diff(
    @Caller() caller: Principal,
    @Param('name', AgentNameParam) name: string,
    @Param('from', VersionParam) from: number,
    @Param('to', VersionParam) to: number,
  ): Promise<CatalogDiff> {
    const before = await this.requireVersion(caller.tenant, name, from);
    const after = await this.requireVersion(caller.tenant, name, to);
    return { name, from, to, ...diffVersions(before.spec, after.spec, { before: `${name} v${from}`, after: `${name} v${to}` }) };
  }

  /** Saves an earlier version's spec as the next version (201); 200 when it already is the latest. */
  @Post(':name/rollback')
  async rollback(
    @Caller() caller: Principal,
    @Param('name', AgentNameParam) name: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const { version: to } = parseBody(rollbackBodySchema, body);
    const old = await this.requireVersion(caller.tenant, name, to);
    // Checked again like a save: what was valid then must still be.
    const { version, created } = await this.agents.save(caller.tenant, parseBody(agentSpecSchema, old.spec));
    if (created)
      await this.audit.record(caller, req, {
        action: 'agent.rolled_back',
        target: { kind: 'agent', id: name },
        detail: { version, rolledBackTo: to },
      });
    return reply
      .status(created ? 201 : 200)
      .header('location', `/v1/agents/${name}`)
      .send({ name, version, created, rolledBackTo: to });
  }

  private async requireAgent(tenant: string, name: string) {
    const agent = await this.agents.find(tenant, name);
    if (!agent) throw new SpindleError('not_found', `no agent named "${name}"`);
    return agent;
  }

  private async requireVersion(tenant: string, name: string, version: number) {
    const found = await this.agents.findVersion(tenant, name, version);
    if (found) return found;
    await this.requireAgent(tenant, name);
    throw new SpindleError('version_not_found', `agent "${name}" has no version ${version}`);
  }
}
