import type { Tenant } from '@spindle/contracts';

/** Defaults for tenants without their own quotas. */
export interface QuotaDefaults {
  readonly maxRunning: number;
  readonly startsPerMinute: number;
  readonly dailyTokenBudget: number | null;
  readonly dailyCostBudgetUsd: number | null;
  /** Runs admitted to the runners' queue and not started yet, across all tenants: what keeps the queue fair. */
  readonly dispatchWindow: number;
}

/** Where the admission reads a tenant's own quotas (the gateway's tenant directory, cached). */
export interface TenantQuotaSource {
  find(id: string): Promise<Pick<Tenant, 'quotas'> | undefined>;
}
