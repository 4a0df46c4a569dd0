import { Controller, Get, Query } from '@nestjs/common';
import { auditQuerySchema, SpindleError, type Principal, parseBody } from '@spindle/contracts';
import { AuditLogRepository } from './audit-log.repository';
import { Caller } from './caller.decorator';

/** `GET /v1/audit`: who changed what and who started, canceled, forked or answered which run, newest first. */
@Controller('v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditLogRepository) {}

  @Get()
  async list(@Caller() caller: Principal, @Query() query: unknown) {
    const q = parseBody(auditQuerySchema, query, 'query');
    if (q.tenant !== undefined && q.tenant !== caller.tenant && !caller.operator) {
      throw new SpindleError('validation_failed', `no tenant "${q.tenant}"`, {
        issues: [{ field: 'query.tenant', message: 'no such tenant' }],
      });
    }
    const { entries, more } = await this.audit.list({
      tenant: q.tenant ?? caller.tenant,
      action: q.action,
      actorId: q.actor,
      targetKind: q.targetKind,
      targetId: q.targetId,
      since: q.since,
      until: q.until,
      beforeId: q.cursor === undefined ? undefined : String(q.cursor),
      limit: q.limit,
    });
    return { entries, nextCursor: more ? (entries.at(-1)?.id ?? null) : null };
  }
}
