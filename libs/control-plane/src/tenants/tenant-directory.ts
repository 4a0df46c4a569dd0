import type { Tenant } from '@spindle/contracts';
import { isDatabaseFault } from '@spindle/db';
import type { TenantsRepository } from './tenants.repository';

/**
 * Tenants as every request needs them (does it exist, is it the operator, what are its quotas),
 * read through a short cache: a quota change reaches every gateway within `cacheMs`. While
 * Postgres does not answer, a tenant read before stands for `outageGraceMs` more, as API keys do.
 */
export class TenantDirectory {
  private readonly cache = new Map<string, { tenant: Tenant | undefined; until: number }>();

  constructor(
    private readonly tenants: TenantsRepository,
    private readonly cacheMs = 5_000,
    private readonly now: () => number = Date.now,
    private readonly outageGraceMs = 600_000,
  ) {}

  async find(id: string): Promise<Tenant | undefined> {
    const cached = this.cache.get(id);
    if (cached && cached.until > this.now()) return cached.tenant;
    let tenant: Tenant | undefined;
    try {
      tenant = await this.tenants.find(id);
    } catch (e) {
      if (cached && cached.until + this.outageGraceMs > this.now() && isDatabaseFault(e)) return cached.tenant;
      throw e;
    }
    // Bounded: ids come from tokens, which anyone can mint with an unknown tenant.
    if (this.cache.size >= 10_000) this.cache.clear();
    this.cache.set(id, { tenant, until: this.now() + this.cacheMs });
    return tenant;
  }

  /** This gateway changed the tenant: read it again next time. */
  forget(id: string): void {
    this.cache.delete(id);
  }
}
