import { TenantDirectory } from '@spindle/control-plane';
import { Body, Controller, Delete, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { newKeyBodySchema, SpindleError, tenantQuerySchema, type Principal, parseBody } from '@spindle/contracts';
import { ApiKeyVerifier, generateApiKey } from '@spindle/identity';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { KeyIdParam } from '../http/path-params';
import { ApiKeysRepository } from './api-keys.repository';
import { AuditTrail } from './audit-trail';
import { Caller } from './caller.decorator';

const tenantOf = (query: unknown) => parseBody(tenantQuerySchema, query ?? {}, 'query').tenant;

/** The tenant a new key is for may be named in the body or the query, but not as two different tenants. */
function askedTenant(inBody: string | undefined, inQuery: string | undefined): string | undefined {
  if (inBody !== undefined && inQuery !== undefined && inBody !== inQuery) {
    throw new SpindleError('validation_failed', 'the body and the query name two different tenants', {
      issues: [{ field: 'tenant', message: `body says ${JSON.stringify(inBody)}, query says ${JSON.stringify(inQuery)}` }],
    });
  }
  return inBody ?? inQuery;
}

/** API keys of the caller's tenant: made (the key is in the answer once, never again), listed, revoked. */
@Controller('v1/keys')
export class KeysController {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly tenants: TenantDirectory,
    private readonly audit: AuditTrail,
    private readonly verifier: ApiKeyVerifier,
  ) {}

  @Post()
  async create(
    @Caller() caller: Principal,
    @Body() body: unknown,
    @Query() query: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const request = parseBody(newKeyBodySchema, body ?? {});
    const tenant = await this.targetTenant(caller, askedTenant(request.tenant, tenantOf(query)));
    const made = generateApiKey();
    const view = await this.keys.insert({
      id: made.id,
      tenant,
      name: request.name,
      scopes: request.scopes,
      secretHash: made.secretHash,
      createdBy: caller.actor,
      expiresAt: request.expiresAt ? new Date(request.expiresAt) : null,
    });
    await this.audit.record(caller, req, {
      tenant,
      action: 'key.created',
      target: { kind: 'key', id: made.id },
      detail: { name: view.name, scopes: view.scopes, expiresAt: view.expiresAt },
    });
    return reply
      .status(201)
      .header('location', `/v1/keys/${made.id}`)
      .header('cache-control', 'no-store')
      .send({ ...view, key: made.token });
  }

  @Get()
  async list(@Caller() caller: Principal, @Query() query: unknown) {
    return { keys: await this.keys.list(await this.targetTenant(caller, tenantOf(query))) };
  }

  @Get(':keyId')
  async get(@Caller() caller: Principal, @Param('keyId', KeyIdParam) keyId: string, @Query() query: unknown) {
    const key = await this.keys.find(await this.targetTenant(caller, tenantOf(query)), keyId);
    if (!key) throw new SpindleError('not_found', `no API key with id "${keyId}"`);
    return key;
  }

  /** Revokes the key at once on this gateway (others within their key cache time); `200` with the revoked key. */
  @Delete(':keyId')
  async revoke(
    @Caller() caller: Principal,
    @Param('keyId', KeyIdParam) keyId: string,
    @Query() query: unknown,
    @Req() req: FastifyRequest,
  ) {
    const tenant = await this.targetTenant(caller, tenantOf(query));
    const key = await this.keys.revoke(tenant, keyId, caller.actor);
    if (!key) throw new SpindleError('not_found', `no API key with id "${keyId}"`);
    this.verifier.forget(keyId);
    await this.audit.record(caller, req, { tenant, action: 'key.revoked', target: { kind: 'key', id: keyId }, detail: { name: key.name } });
    return key;
  }

  /** The caller's tenant, or (for the operator tenant's admins) the one asked for. */
  private async targetTenant(caller: Principal, asked: string | undefined): Promise<string> {
    if (asked === undefined || asked === caller.tenant) return caller.tenant;
    // Another tenant's key is the operator's business only; to anyone else that tenant does not exist.
    if (!caller.operator || !(await this.tenants.find(asked))) {
      throw new SpindleError('validation_failed', `no tenant "${asked}"`, { issues: [{ field: 'tenant', message: 'no such tenant' }] });
    }
    return asked;
  }
}
