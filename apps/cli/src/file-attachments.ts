import { basename, extname } from 'node:path';
import { claimedMediaType, type FilePartInput } from '@spindle/contracts';
import { UsageError } from './usage-error';

/** `--file` given as a path: what to upload it as. */
export function fileUploadOf(path: string): { name: string; contentType: string } {
  return { name: basename(path), contentType: claimedMediaType(extname(path)) };
}

/** Commander's collector of a repeatable option. */
export const collectPaths = (path: string, earlier: string[] = []): string[] => [...earlier, path];

/**
 * The run input with the uploaded files as `input.files` (file parts, in the order given). Refused
 * before anything is uploaded when the input cannot take them: it is not an object, or it already
 * has `files` (the CLI never overwrites what the input says).
 */
export function checkInputTakesFiles(input: unknown): void {
  if (input === undefined) return;
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw new UsageError('--file puts the files under input.files: --input must then be a JSON object (or left out)');
  if (Object.hasOwn(input, 'files'))
    throw new UsageError('--file puts the files under input.files, but --input already has "files": rename it or leave out --file');
}

export function inputWithFiles(input: unknown, parts: readonly FilePartInput[]): unknown {
  checkInputTakesFiles(input);
  if (parts.length === 0) return input;
  return { ...((input as Record<string, unknown> | undefined) ?? {}), files: parts };
}
