import { TenantDirectory, TenantsRepository } from '@spindle/control-plane';
import { Body, Controller, Get, Param, Post, Put, Req, Res } from '@nestjs/common';
import { newTenantBodySchema, SpindleError, tenantQuotasSchema, type Principal, type Tenant, parseBody } from '@spindle/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TenantIdParam } from '../http/path-params';
import { AuditTrail } from './audit-trail';
import { Caller } from './caller.decorator';

/**
 * Tenants and their quotas. The operator tenant's admins see and change every tenant; another
 * tenant's admins see only their own (and another tenant is `404` to them).
 */
@Controller('v1/tenants')
export class TenantsController {
  constructor(
    private readonly tenants: TenantsRepository,
    private readonly directory: TenantDirectory,
    private readonly audit: AuditTrail,
  ) {}

  @Get()
  async list(@Caller() caller: Principal) {
    if (caller.operator) return { tenants: await this.tenants.list() };
    const own = await this.tenants.find(caller.tenant);
    return { tenants: own ? [own] : [] };
  }

  @Get(':tenant')
  async get(@Caller() caller: Principal, @Param('tenant', TenantIdParam) id: string): Promise<Tenant> {
    return this.visible(caller, id);
  }

  @Post()
  async create(@Caller() caller: Principal, @Body() body: unknown, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    this.requireOperator(caller);
    const { id, name } = parseBody(newTenantBodySchema, body ?? {});
    if (!(await this.tenants.create(id, name))) throw new SpindleError('conflict', `a tenant "${id}" exists already`);
    await this.audit.record(caller, req, { action: 'tenant.created', target: { kind: 'tenant', id }, detail: { name } });
    return reply
      .status(201)
      .header('location', `/v1/tenants/${id}`)
      .send(await this.tenants.find(id));
  }

  @Put(':tenant/quotas')
  async setQuotas(
    @Caller() caller: Principal,
    @Param('tenant', TenantIdParam) id: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
  ) {
    this.requireOperator(caller);
    const quotas = parseBody(tenantQuotasSchema, body ?? {});
    const tenant = await this.tenants.setQuotas(id, quotas);
    if (!tenant) throw new SpindleError('not_found', `no tenant "${id}"`);
    this.directory.forget(id);
    await this.audit.record(caller, req, { action: 'tenant.quotas_changed', target: { kind: 'tenant', id }, detail: { quotas } });
    return tenant;
  }

  private async visible(caller: Principal, id: string): Promise<Tenant> {
    const tenant = caller.operator || id === caller.tenant ? await this.tenants.find(id) : undefined;
    if (!tenant) throw new SpindleError('not_found', `no tenant "${id}"`);
    return tenant;
  }

  private requireOperator(caller: Principal): void {
    if (!caller.operator) throw new SpindleError('forbidden', "only the operator tenant's admins manage tenants");
  }
}
