import { deleteFileBytes, fileSha256, putFileBytes, readFileBytes, type Bus } from '@spindle/bus';
import { SpindleError, sniffMediaType, type Actor, type StoredFile } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { Transaction } from 'kysely';
import type { FileSettings } from '../control-plane.settings';
import { fileIdOf } from './file-id';
import { resolveFileParts, type FileLookup } from './file-parts.resolver';
import type { FileRepository, FileRow } from './file.repository';

export interface Upload {
  readonly tenant: string;
  readonly actor: Actor;
  readonly bytes: Uint8Array;
  /** The request's Content-Type: checked against the bytes, never believed. */
  readonly claimedType?: string;
  readonly name?: string;
}

export function storedFileView(row: FileRow): StoredFile {
  return {
    fileId: row.file_id,
    mediaType: row.media_type,
    bytes: Number(row.bytes),
    sha256: row.sha256,
    ...(row.name !== null && { name: row.name }),
    createdAt: new Date(row.created_at).toISOString(),
  };
}

const notFound = (fileId: string) => new SpindleError('file_not_found', `no file with id "${fileId}"`);

/**
 * A tenant's files: bytes once by sha256 in the object store, a row per tenant in `files`. Every
 * write of bytes and every delete of them holds the bytes' lock (`FileRepository.lockBytes`), so
 * an upload never ends up naming bytes an erasure of another file of the same bytes just deleted.
 */
export class FileLibrary {
  constructor(
    private readonly bus: Bus,
    private readonly files: FileRepository,
    private readonly settings: FileSettings,
  ) {}

  /** Stores the upload (or finds it stored: the same bytes are the same file); answers what it is. */
  async upload(upload: Upload): Promise<StoredFile> {
    if (upload.bytes.byteLength === 0)
      throw new SpindleError('validation_failed', 'the file is empty', { issues: [{ field: '(body)', message: 'no bytes' }] });
    if (upload.bytes.byteLength > this.settings.maxBytes) throw this.tooLarge();
    const sniffed = sniffMediaType(upload.bytes, upload.claimedType, this.settings.mediaTypes);
    if (!sniffed.ok) throw new SpindleError('unsupported_media_type', sniffed.reason);
    const sha256 = fileSha256(upload.bytes);
    const now = new Date();
    const row = await this.files.db.transaction().execute(async (trx) => {
      await this.files.lockBytes(trx, sha256);
      // Under the lock: if a collector deleted these bytes a moment ago, they are put back before the row names them.
      await putFileBytes(this.bus, upload.bytes);
      return this.files.upsert(trx, {
        tenant_id: upload.tenant,
        file_id: fileIdOf(upload.tenant, sha256),
        sha256,
        media_type: sniffed.mediaType,
        bytes: upload.bytes.byteLength,
        name: upload.name ?? null,
        created_at: now,
        created_by: JSON.stringify(upload.actor),
        last_used_at: now,
      });
    });
    return storedFileView(row);
  }

  /**
   * Stores bytes another record names (a knowledge document waiting to be ingested): under the
   * bytes' lock, with that record written in the same transaction, as an upload does.
   */
  async storeNamed<T>(bytes: Uint8Array, write: (trx: Transaction<GatewayTables>, sha256: string) => Promise<T>): Promise<T> {
    const sha256 = fileSha256(bytes);
    return this.files.db.transaction().execute(async (trx) => {
      await this.files.lockBytes(trx, sha256);
      await putFileBytes(this.bus, bytes);
      return write(trx, sha256);
    });
  }

  /** Deletes the bytes once nothing names them (no tenant's file, no pending document); absent bytes are fine. */
  async releaseBytes(sha256: string): Promise<void> {
    await this.files.db.transaction().execute(async (trx) => {
      await this.files.lockBytes(trx, sha256);
      if (!(await this.files.bytesNamed(trx, sha256))) await deleteFileBytes(this.bus, sha256);
    });
  }

  get maxBytes(): number {
    return this.settings.maxBytes;
  }

  tooLarge(): SpindleError {
    return new SpindleError('payload_too_large', `a file may have at most ${this.settings.maxBytes} bytes (SPINDLE_MAX_FILE_BYTES)`);
  }

  async get(tenant: string, fileId: string): Promise<StoredFile> {
    const row = await this.files.find(tenant, fileId);
    if (!row) throw notFound(fileId);
    return storedFileView(row);
  }

  /** The file and its bytes (checked against its hash). */
  async content(tenant: string, fileId: string): Promise<{ file: StoredFile; bytes: Uint8Array }> {
    const file = await this.get(tenant, fileId);
    const bytes = await readFileBytes(this.bus, file.sha256);
    // A row whose bytes are gone (the store lost them) is answered as gone, not as a server fault.
    if (!bytes) throw notFound(fileId);
    return { file, bytes };
  }

  /** Deletes the file, and its bytes if no file of any tenant names them; `409` while a run refers to it. */
  async delete(tenant: string, fileId: string): Promise<void> {
    const row = await this.files.find(tenant, fileId);
    if (!row) throw notFound(fileId);
    await this.files.db.transaction().execute(async (trx) => {
      await this.files.lockBytes(trx, row.sha256);
      const runs = await this.files.referenceCount(tenant, fileId, trx);
      if (runs > 0) throw new SpindleError('conflict', `file ${fileId} is referred to by ${runs} run(s); erase them first`);
      try {
        if (!(await this.files.delete(trx, tenant, fileId))) throw notFound(fileId);
      } catch (e) {
        // A run's reference landed between the count and the delete: the foreign key kept the row.
        if ((e as { code?: string }).code === '23503') throw new SpindleError('conflict', `file ${fileId} is referred to by a run`);
        throw e;
      }
      if (!(await this.files.bytesNamed(trx, row.sha256))) await deleteFileBytes(this.bus, row.sha256);
    });
  }

  /** The lookup a start or an answer resolves its file parts with: the tenant's files, each marked used. */
  lookup(tenant: string): FileLookup {
    return async (fileIds) => {
      const rows = await this.files.touch(tenant, fileIds, new Date());
      return new Map(
        rows.map((r) => [
          r.file_id,
          { type: 'file' as const, fileId: r.file_id, mediaType: r.media_type, bytes: Number(r.bytes), sha256: r.sha256, name: r.name },
        ]),
      );
    };
  }

  /** Every file part of a value replaced by the tenant's file reference (`404 file_not_found` for an id it has not). */
  resolve(tenant: string, value: unknown, root: string): Promise<unknown> {
    return resolveFileParts(value, root, this.lookup(tenant));
  }
}
