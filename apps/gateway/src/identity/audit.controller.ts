import { Controller, Get, Query } from '@nestjs/common';
import { SpindleError, tenantIdSchema, type Principal } from '@spindle/contracts';
import { z } from 'zod';
import { queryInteger } from '../http/decimal-integer';
import { listLimit } from '../http/list-query';
import { parseBody } from '../http/parse-body';
import { AuditLogRepository } from './audit-log.repository';
import { Caller } from './caller.decorator';

const FILTER_TEXT = /^[\x21-\x7e]{1,200}$/;
const text = z.string().regex(FILTER_TEXT, 'visible ASCII, at most 200');
const auditQuerySchema = z.strictObject({
  action: text.optional(),
  actor: text.optional(),
  targetKind: text.optional(),
  targetId: text.optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  /** The operator's admins read any tenant's trail. */
  tenant: tenantIdSchema.optional(),
  limit: listLimit,
  /** The previous page's `nextCursor`: entries older than it. */
  cursor: queryInteger({ min: 1, max: Number.MAX_SAFE_INTEGER }).optional(),
});

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
