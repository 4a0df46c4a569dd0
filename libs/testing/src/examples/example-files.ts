import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { claimedMediaType } from '@spindle/contracts';

/** Uploads a file's bytes (`POST /v1/files`, the raw body, its media type as content-type) and answers its id. */
export type UploadFile = (bytes: Uint8Array, mediaType: string) => Promise<string>;

/** The media type an example's file is uploaded as, by its extension. */
export function mediaTypeOf(path: string): string {
  return claimedMediaType(extname(path));
}

/** The uploader over `fetch` (a plain one, or the e2e stack's checked one): `base` is the gateway, empty for `fetch`'s own. */
export function httpUploader(fetchFn: (url: string, init: RequestInit) => Promise<Response>, base = ''): UploadFile {
  return async (bytes, mediaType) => {
    const res = await fetchFn(`${base}/v1/files`, { method: 'POST', headers: { 'content-type': mediaType }, body: bytes });
    const body = (await res.json().catch(() => undefined)) as { fileId?: unknown; detail?: unknown } | undefined;
    if (!res.ok || typeof body?.fileId !== 'string') {
      throw new Error(`POST /v1/files answered ${res.status}: ${String(body?.detail ?? 'no file id')}`);
    }
    return body.fileId;
  };
}

/**
 * Uploads the example's files (paths relative to `examples/`) and writes their ids into its input:
 * each `{ "$file": "<name>" }` becomes the file part `{ "type": "file", "fileId": … }` the API takes.
 */
export async function inputWithFiles(input: unknown, files: Record<string, string>, dir: string, upload?: UploadFile): Promise<unknown> {
  const names = Object.keys(files);
  if (names.length === 0) return input;
  if (upload === undefined) throw new Error('this example carries files: run it with an uploader (POST /v1/files)');
  const ids = new Map<string, string>();
  for (const name of names) ids.set(name, await upload(readFileSync(join(dir, files[name])), mediaTypeOf(files[name])));
  return replaceFileMarks(input, ids);
}

function replaceFileMarks(value: unknown, ids: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => replaceFileMarks(item, ids));
  if (value === null || typeof value !== 'object') return value;
  const mark = (value as { $file?: unknown }).$file;
  if (typeof mark === 'string') {
    const fileId = ids.get(mark);
    if (fileId === undefined) throw new Error(`the input names the file "${mark}", which the example's files do not list`);
    return { type: 'file', fileId };
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaceFileMarks(item, ids)]));
}
