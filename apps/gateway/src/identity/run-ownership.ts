import { firstEventOf, type Bus } from '@spindle/bus';
import { DEFAULT_TENANT, isRunId, SpindleError, type Principal } from '@spindle/contracts';
import { quoted } from '../http/path-params';
import type { RunLogLoss } from '../runs/run-log-loss';

/**
 * Whose run a run id is, from its `run.queued` (which never changes, so the answer is cached).
 * Another tenant's run is `run_not_found`, exactly like a run that does not exist: the answer
 * never says whether an id is in use.
 */
export class RunOwnership {
  private readonly tenants = new Map<string, string>();

  constructor(
    private readonly bus: Bus,
    private readonly maxCached = 100_000,
    private readonly loss?: RunLogLoss,
  ) {}

  /** `lostRun: 'erase'`: a run whose log was lost passes too, when the runs list has it as the caller's. */
  async requireOwn(principal: Principal, runId: string, lostRun?: 'erase'): Promise<void> {
    const tenant = isRunId(runId) ? await this.tenantOf(runId) : undefined;
    if (tenant === principal.tenant) return;
    if (lostRun === 'erase' && isRunId(runId) && (await this.loss?.lostRunTenant(runId)) === principal.tenant) return;
    // A lost log is said alike to everyone, before "not found" could tell an id in use apart.
    if (isRunId(runId)) await this.loss?.refuseLost(runId);
    // Quoted as JSON: a path may carry control characters (a NUL) that must not reach the answer raw.
    throw new SpindleError('run_not_found', `no run with id ${quoted(runId)}`);
  }

  async tenantOf(runId: string): Promise<string | undefined> {
    const cached = this.tenants.get(runId);
    // An owner known from before the log's stream was made again is read again: the log may be gone.
    if (cached !== undefined && !(await this.loss?.predatesLog(runId))) return cached;
    const read = () => firstEventOf(this.bus, runId);
    const queued = await (this.loss ? this.loss.read(read) : read());
    if (!queued) return undefined;
    const tenant = queued.data.tenant ?? DEFAULT_TENANT;
    this.cache(runId, tenant);
    return tenant;
  }

  /** The gateway itself queued the run (a start or a fork): its owner is known without a read. */
  remember(runId: string, tenant: string): void {
    this.cache(runId, tenant);
  }

  /** Every run a gateway starts passes here: past `maxCached` the oldest answer goes (it can be read again). */
  private cache(runId: string, tenant: string): void {
    if (!this.tenants.has(runId) && this.tenants.size >= this.maxCached) this.tenants.delete(this.tenants.keys().next().value as string);
    this.tenants.set(runId, tenant);
  }
}
