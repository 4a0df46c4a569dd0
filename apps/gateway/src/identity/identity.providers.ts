import { TenantDirectory, TenantsRepository } from '@spindle/control-plane';
import { Inject, type OnApplicationBootstrap, type Provider } from '@nestjs/common';
import type { Bus, StreamGuard } from '@spindle/bus';
import { isDatabaseFault, type GatewayTables } from '@spindle/db';
import { ApiKeyVerifier, Authenticator, OidcVerifier, StreamTokenSigner } from '@spindle/identity';
import { DATABASE } from '@spindle/service-db';
import { BUS, LOGGER, STREAM_GUARD } from '@spindle/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../gateway.config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { ApiKeysRepository } from './api-keys.repository';
import { AuditLogRepository } from './audit-log.repository';
import { AuditTrail } from './audit-trail';
import { bootstrapAdminKey } from './bootstrap-admin-key';
import { RunLogLoss } from '../runs/run-log-loss';
import { RunOwnership } from './run-ownership';

/** Writes the first admin key on a fresh installation (`SPINDLE_BOOTSTRAP_KEY_FILE`). */
class AdminKeyBootstrap implements OnApplicationBootstrap {
  constructor(
    @Inject(DATABASE) private readonly db: Kysely<GatewayTables>,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap() {
    const file = this.config.auth.bootstrapKeyFile;
    if (file && !this.config.auth.authOff) await bootstrapAdminKey(this.db, file, this.logger);
  }
}

const byDatabase = <T>(make: (db: Kysely<GatewayTables>) => T) => ({ inject: [DATABASE], useFactory: make });

/** Principals, tenants, keys and the audit trail. */
export function identityProviders(config: GatewayConfig): Provider[] {
  return [
    { provide: ApiKeysRepository, ...byDatabase((db) => new ApiKeysRepository(db)) },
    { provide: TenantsRepository, ...byDatabase((db) => new TenantsRepository(db)) },
    { provide: AuditLogRepository, ...byDatabase((db) => new AuditLogRepository(db)) },
    { provide: TenantDirectory, inject: [TenantsRepository], useFactory: (tenants: TenantsRepository) => new TenantDirectory(tenants) },
    {
      provide: AuditTrail,
      inject: [AuditLogRepository, LOGGER],
      useFactory: (audit: AuditLogRepository, logger: Logger) => new AuditTrail(audit, logger),
    },
    {
      provide: ApiKeyVerifier,
      inject: [ApiKeysRepository, LOGGER],
      useFactory: (keys: ApiKeysRepository, logger: Logger) =>
        new ApiKeyVerifier({
          find: (id) => keys.findForVerification(id),
          touch: (id, at) => void keys.touch(id, at).catch((err: unknown) => logger.warn({ err, keyId: id }, 'could not record a key use')),
          cacheMs: config.auth.keyCacheMs,
          isOutage: isDatabaseFault,
        }),
    },
    {
      provide: Authenticator,
      inject: [ApiKeyVerifier, TenantDirectory],
      useFactory: (keys: ApiKeyVerifier, tenants: TenantDirectory) =>
        new Authenticator({
          keys,
          ...(config.auth.oidc && {
            accessTokens: new OidcVerifier(config.auth.oidc.settings, { cooldownMs: config.auth.oidc.jwksCooldownMs }),
          }),
          tenant: (id) => tenants.find(id),
          authOff: config.auth.authOff,
          streamTokens: new StreamTokenSigner({ secret: config.auth.streamTokenSecret }),
        }),
    },
    { provide: RunLogLoss, inject: [BUS, STREAM_GUARD], useFactory: (bus: Bus, guard: StreamGuard) => new RunLogLoss(bus, guard) },
    {
      provide: RunOwnership,
      inject: [BUS, RunLogLoss],
      useFactory: (bus: Bus, loss: RunLogLoss) => new RunOwnership(bus, undefined, loss),
    },
    AdminKeyBootstrap,
  ];
}
