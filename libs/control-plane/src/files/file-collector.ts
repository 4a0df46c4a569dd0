import { deleteFileBytes, type Bus } from '@spindle/bus';
import type { Logger } from '@spindle/telemetry';
import type { FileRepository } from './file.repository';

/** Files looked at per pass; the next pass takes the rest. */
const BATCH = 100;

/**
 * Deletes files no run refers to any more once they have been unused for the grace period (an
 * upload not yet used by a run survives it), and their bytes once no file of any tenant names them.
 *
 * Per file, in one transaction holding the bytes' lock: delete the row if it is still collectable,
 * then ask whether any row still names the sha256, and delete the bytes only if none does, before
 * the commit. An upload of the same bytes (any tenant) takes the same lock around "put the bytes,
 * then insert its row": it either committed its row before this looked (so the bytes stay), or it
 * waits for this commit and then puts the bytes back itself. A reference a run's projection adds
 * meanwhile is caught by the foreign key (the delete fails, the file stays). What remains is a
 * commit that fails after the bytes were deleted: the row comes back naming no bytes, and reading
 * it answers `404 file_not_found` (never a 5xx) until it is deleted.
 */
export class FileCollector {
  constructor(
    private readonly bus: Bus,
    private readonly files: FileRepository,
    private readonly graceMs: number,
    private readonly logger: Logger,
  ) {}

  /** One pass; answers how many files it deleted. */
  async collect(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.graceMs);
    let deleted = 0;
    for (const file of await this.files.collectable(before, BATCH)) {
      try {
        const gone = await this.files.db.transaction().execute(async (trx) => {
          await this.files.lockBytes(trx, file.sha256);
          if (!(await this.files.deleteIfCollectable(trx, file.tenant_id, file.file_id, before))) return false;
          if (!(await this.files.bytesNamed(trx, file.sha256))) await deleteFileBytes(this.bus, file.sha256);
          return true;
        });
        if (gone) deleted++;
      } catch (e) {
        // A run referred to it meanwhile (the foreign key): it stays. Anything else: the next pass tries again.
        if ((e as { code?: string }).code !== '23503') this.logger.warn({ err: e, fileId: file.file_id }, 'collecting a file failed');
      }
    }
    if (deleted > 0) this.logger.info({ files: deleted }, 'deleted files no run refers to');
    return deleted;
  }
}
