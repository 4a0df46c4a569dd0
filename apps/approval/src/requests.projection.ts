import type { RunEvent } from '@spindle/contracts';
import type { ApprovalTables } from '@spindle/db';
import type { Projection } from '@spindle/projection-kit';
import { sql, type Transaction } from 'kysely';
import { requestChanges, requestReads } from './request-changes';
import { writeRequestChanges } from './request-rows.writer';

/** The approval service's read model of every request for a person: asked, answered, closed. */
export class RequestsProjection implements Projection<ApprovalTables> {
  readonly name = 'approval';
  readonly reads = requestReads;

  constructor(readonly durable: string) {}

  async apply(trx: Transaction<ApprovalTables>, events: readonly RunEvent[]): Promise<void> {
    await writeRequestChanges(trx, requestChanges(events));
  }

  async reset(trx: Transaction<ApprovalTables>): Promise<void> {
    await sql`truncate table runs, requests`.execute(trx);
  }

  async erase(trx: Transaction<ApprovalTables>, runIds: readonly string[]): Promise<void> {
    for (const table of ['requests', 'runs'] as const)
      await trx
        .deleteFrom(table)
        .where('run_id', 'in', [...runIds])
        .execute();
  }
}
