import { fieldPath, fileIdSchema, SpindleError, type FileRef } from '@spindle/contracts';

/** Bounds on what is searched for file parts: the gateway's body limits bound the value, these bound the search. */
export const MAX_FILE_PARTS = 256;
const MAX_DEPTH = 64;
const MAX_NAME = 255;

/** A file part found in a value: where it is, and what it asks for. */
export interface FilePartAt {
  readonly path: readonly (string | number)[];
  readonly fileId: string;
  readonly name?: string;
}

/** What a tenant's file is, as the lookup answers it. */
export type StoredFileRef = Omit<FileRef, 'name'> & { readonly name?: string | null };

/** Answers the tenant's files among these ids (ids it does not have are left out). */
export type FileLookup = (fileIds: readonly string[]) => Promise<ReadonlyMap<string, StoredFileRef>>;

const isPart = (v: object): v is { type: 'file'; fileId: unknown; name?: unknown } =>
  (v as { type?: unknown }).type === 'file' && Object.prototype.hasOwnProperty.call(v, 'fileId');

const refused = (path: readonly (string | number)[], root: string, message: string) =>
  new SpindleError('validation_failed', `${fieldPath(path, root) || root}: ${message}`, {
    issues: [{ field: fieldPath(path, root) || root, message }],
  });

/**
 * Every `{ type: 'file', fileId, name? }` in a value, in document order. A part or an already
 * resolved reference alike (a caller may send either; both are looked up again, so a forged
 * reference never gets past the tenant's files). Refuses a malformed part, too many, or too deep.
 */
export function filePartsIn(value: unknown, root: string): FilePartAt[] {
  const parts: FilePartAt[] = [];
  const walk = (v: unknown, path: (string | number)[]): void => {
    if (v === null || typeof v !== 'object') return;
    if (path.length > MAX_DEPTH) throw refused(path, root, `nests deeper than ${MAX_DEPTH} levels`);
    if (Array.isArray(v)) return v.forEach((item, i) => walk(item, [...path, i]));
    if (!isPart(v)) return Object.entries(v).forEach(([k, item]) => walk(item, [...path, k]));
    if (!fileIdSchema.safeParse(v.fileId).success) throw refused([...path, 'fileId'], root, 'must be a file id (file_…)');
    if (v.name !== undefined && (typeof v.name !== 'string' || v.name.length === 0 || v.name.length > MAX_NAME))
      throw refused([...path, 'name'], root, `must be a name of 1 to ${MAX_NAME} characters`);
    if (parts.length === MAX_FILE_PARTS) throw refused(path, root, `more than ${MAX_FILE_PARTS} files`);
    parts.push({ path, fileId: v.fileId as string, ...(v.name !== undefined && { name: v.name as string }) });
  };
  walk(value, []);
  return parts;
}

/** The value with each part replaced by its reference (the part's own name first, else the stored one). */
export function withFileRefs(value: unknown, parts: readonly FilePartAt[], files: ReadonlyMap<string, StoredFileRef>): unknown {
  if (parts.length === 0) return value;
  const at = new Map(parts.map((p) => [p.path.join('\u0000'), p]));
  const rebuild = (v: unknown, path: (string | number)[]): unknown => {
    const part = at.get(path.join('\u0000'));
    if (part) return referenceOf(part, files.get(part.fileId)!);
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((item, i) => rebuild(item, [...path, i]));
    return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, rebuild(item, [...path, k])]));
  };
  return rebuild(value, []);
}

function referenceOf(part: FilePartAt, file: StoredFileRef): FileRef {
  const name = part.name ?? file.name ?? undefined;
  return { type: 'file', fileId: file.fileId, mediaType: file.mediaType, bytes: file.bytes, sha256: file.sha256, ...(name && { name }) };
}

/**
 * Resolves every file part of a value against the tenant's files in one lookup: an id the tenant
 * has no file of (another tenant's, a deleted one, one never made) is `404 file_not_found` naming
 * the first field that asks for it.
 */
export async function resolveFileParts(value: unknown, root: string, lookup: FileLookup): Promise<unknown> {
  const parts = filePartsIn(value, root);
  if (parts.length === 0) return value;
  const files = await lookup([...new Set(parts.map((p) => p.fileId))]);
  const missing = parts.find((p) => !files.has(p.fileId));
  if (missing) {
    const field = fieldPath([...missing.path, 'fileId'], root);
    throw new SpindleError('file_not_found', `${field}: no file with id "${missing.fileId}"`, {
      issues: [{ field, message: 'no such file' }],
    });
  }
  return withFileRefs(value, parts, files);
}
