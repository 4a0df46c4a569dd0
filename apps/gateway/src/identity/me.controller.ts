import { TenantDirectory } from '@spindle/control-plane';
import { Controller, Get, Inject } from '@nestjs/common';
import { SCOPES, type Principal } from '@spindle/contracts';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import type { GatewayConfig } from '../gateway.config';
import { Caller } from './caller.decorator';

/** Who the caller is, and (without credentials) how to sign in. */
@Controller('v1')
export class MeController {
  constructor(
    private readonly tenants: TenantDirectory,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get('me')
  async me(@Caller() caller: Principal) {
    const tenant = await this.tenants.find(caller.tenant);
    return {
      actor: caller.actor,
      tenant: { id: caller.tenant, name: tenant?.name ?? caller.tenant, operator: caller.operator },
      scopes: SCOPES.filter((s) => caller.scopes.has(s)),
      via: caller.via,
      expiresAt: caller.expiresAt?.toISOString() ?? null,
    };
  }

  /** Public: what the console's sign-in page offers. */
  @Get('auth/config')
  config_() {
    const { oidc, authOff } = this.config.auth;
    return {
      authOff,
      apiKeys: true,
      oidc: oidc?.consoleClientId
        ? { issuer: oidc.settings.issuer, clientId: oidc.consoleClientId, scope: oidc.consoleScope, audience: oidc.settings.audience }
        : null,
    };
  }
}
