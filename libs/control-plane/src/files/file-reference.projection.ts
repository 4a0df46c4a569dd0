import type { RunEvent } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { Fold } from '@spindle/projection-kit';
import type { Transaction } from 'kysely';
import { fileRefsOf, fileRefReads } from './file-refs-of';
import { FileReferencesRepository } from './file.repository';

/**
 * Which runs refer to which files, from the log: a run refers to a file from the first event that
 * carries its reference (`fileRefsOf`) until the run is erased (`DELETE /v1/runs/{id}`, or its
 * retention), so a file lives while any run that saw it does. One row per (file, run).
 */
export class FileReferenceProjection implements Fold<GatewayTables> {
  private readonly files = new FileReferencesRepository();
  readonly reads = fileRefReads;

  async apply(trx: Transaction<GatewayTables>, events: readonly RunEvent[]): Promise<void> {
    const seen = new Set<string>();
    const refs: Array<{ runId: string; fileId: string }> = [];
    for (const e of events) {
      for (const ref of fileRefsOf(e)) {
        const key = `${e.runId}\u0000${ref.fileId}`;
        if (seen.has(key)) continue;
        seen.add(key);
        refs.push({ runId: e.runId, fileId: ref.fileId });
      }
    }
    await this.files.addReferences(trx, refs);
  }

  async reset(trx: Transaction<GatewayTables>): Promise<void> {
    await this.files.dropAllReferences(trx);
  }

  async erase(trx: Transaction<GatewayTables>, runIds: readonly string[]): Promise<void> {
    await this.files.dropReferences(trx, runIds);
  }
}
