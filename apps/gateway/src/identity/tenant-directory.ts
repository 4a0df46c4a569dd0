import type { Tenant } from '@spindle/contracts';
import type { TenantsRepository } from './tenants.repository';

/**
 * Tenants as every request needs them (does it exist, is it the operator, what are its quotas),
 * read through a short cache: a quota change reaches every gateway within `cacheMs`.
 */
export class TenantDirectory {
  private readonly cache = new Map<string, { tenant: Tenant | undefined; until: number }>();

  constructor(
    private readonly tenants: TenantsRepository,
    private readonly cacheMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  async find(id: string): Promise<Tenant | undefined> {
    const cached = this.cache.get(id);
    if (cached && cached.until > this.now()) return cached.tenant;
    const tenant = await this.tenants.find(id);
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
