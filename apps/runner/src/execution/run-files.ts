import { openFileStore, readFileBytes, type Bus } from '@spindle/bus';
import { SpindleError, type FileRef } from '@spindle/contracts';
import { fileRefsIn } from '@spindle/engine';
import type { FileReader } from '@spindle/llm';

/** The model port's file reader: a reference's bytes from the file store, checked against its hash and size. */
export function runFileReader(bus: Bus): FileReader {
  return async (ref) => {
    const bytes = await readFileBytes(bus, ref.sha256);
    if (bytes === undefined || bytes.byteLength !== ref.bytes) {
      throw new SpindleError('file_not_found', `file ${ref.fileId} (${ref.mediaType}) is no longer in the file store`);
    }
    return bytes;
  };
}

/**
 * A tool's result, once every file reference in it names bytes the file store holds: the engine
 * sends such references to the model, so a tool cannot make up one. This is NOT a tenant check —
 * the store keeps bytes by content for all tenants — see the files table for who may read what.
 */
export async function vouchedToolResult(bus: Bus, result: unknown): Promise<unknown> {
  for (const ref of fileRefsIn(result)) {
    if (!(await holds(bus, ref))) {
      throw new SpindleError('tool_failed', `the tool returned file ${ref.fileId}, whose bytes the runner does not hold`);
    }
  }
  return result;
}

/** By the object's info, not its bytes: the model port reads (and hash-checks) them when it sends the file. */
async function holds(bus: Bus, ref: FileRef): Promise<boolean> {
  const info = await (await openFileStore(bus)).info(ref.sha256);
  return info !== null && !info.deleted && info.size === ref.bytes;
}
