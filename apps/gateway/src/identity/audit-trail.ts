import type { Principal } from '@spindle/contracts';
import { coalescedWrites } from '@spindle/db';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AuditEntry, AuditLogRepository } from './audit-log.repository';

/**
 * Records who did what, from where, after it happened. A change that happened is never turned
 * into an error because its audit entry could not be written: that is logged loudly instead
 * (and runs keep who did what in their own log).
 */
export class AuditTrail {
  /** Entries of concurrent requests go in one insert (twenty starts at once: a few statements, not twenty). */
  private readonly append: (entry: AuditEntry) => Promise<void>;

  constructor(
    repository: AuditLogRepository,
    private readonly logger: Logger,
  ) {
    this.append = coalescedWrites((entries) => repository.appendAll(entries));
  }

  async record(
    caller: Principal,
    request: FastifyRequest,
    change: Pick<AuditEntry, 'action' | 'target' | 'detail'> & { tenant?: string },
  ): Promise<void> {
    const entry: AuditEntry = {
      tenant: change.tenant ?? caller.tenant,
      actor: caller.actor,
      action: change.action,
      target: change.target,
      source: request.ip ?? null,
      ...(change.detail ? { detail: change.detail } : {}),
    };
    await this.append(entry).catch((err: unknown) =>
      this.logger.error({ err, action: entry.action, target: entry.target, actor: entry.actor.id }, 'could not write an audit entry'),
    );
  }
}
