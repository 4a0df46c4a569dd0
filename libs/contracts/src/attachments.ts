import { z } from 'zod';

/**
 * Files a run carries (images, PDFs): uploaded once through `POST /v1/files`, stored by content
 * hash in the JetStream object store, and referenced everywhere else. The log holds references,
 * never bytes, so a run with ten screenshots stays small.
 */
export const FILE_ID_PATTERN = /^file_[a-z0-9]{26}$/;
export const fileIdSchema = z.string().regex(FILE_ID_PATTERN, 'must be a file id (file_ and 26 letters or digits)');

/** What a caller writes where a file goes: a run input, a thread message, an answer, a tool result. */
export const filePartInputSchema = z.strictObject({
  type: z.literal('file'),
  fileId: fileIdSchema,
  /** Shown to the model and the console; the stored name is used when absent. */
  name: z.string().min(1).max(255).optional(),
});
export type FilePartInput = z.infer<typeof filePartInputSchema>;

/** A file reference as the log records it: resolved against the tenant's files when it entered the run. */
export const fileRefSchema = z.strictObject({
  type: z.literal('file'),
  fileId: fileIdSchema,
  mediaType: z.string().min(3).max(255),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  name: z.string().min(1).max(255).optional(),
});
export type FileRef = z.infer<typeof fileRefSchema>;

export function isFileRef(value: unknown): value is FileRef {
  return fileRefSchema.safeParse(value).success;
}

/**
 * Every distinct file reference inside a value (one per fileId, first found first): the engine's
 * attachments, the runner's check of a tool's files and the control plane's reference count all
 * read a value this one way. It looks at most `maxDepth` levels deep and stops after `maxRefs`.
 */
export function fileRefsIn(value: unknown, limits: { maxDepth: number; maxRefs: number }): FileRef[] {
  const found = new Map<string, FileRef>();
  const walk = (v: unknown, depth: number): void => {
    if (found.size >= limits.maxRefs || depth > limits.maxDepth || v === null || typeof v !== 'object') return;
    if ((v as { type?: unknown }).type === 'file' && isFileRef(v)) {
      if (!found.has(v.fileId)) found.set(v.fileId, v);
      return;
    }
    for (const item of Array.isArray(v) ? v : Object.values(v)) walk(item, depth + 1);
  };
  walk(value, 0);
  return [...found.values()];
}

/** An uploaded file as `POST /v1/files` and `GET /v1/files/{id}` answer it. */
export const storedFileSchema = z.object({
  fileId: fileIdSchema,
  mediaType: z.string(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  name: z.string().optional(),
  createdAt: z.string(),
});
export type StoredFile = z.infer<typeof storedFileSchema>;
