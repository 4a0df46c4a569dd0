import { fileRefsIn as findFileRefs, SpindleError, type FileRef } from '@spindle/contracts';
import { evaluateValue } from '../expressions/cel-expression';
import type { ChatMessage } from '../ports';

/** The most files one node's message may carry; a model call sends at most MAX_CALL_ATTACHMENTS (the event's limit). */
export const MAX_NODE_ATTACHMENTS = 32;
export const MAX_CALL_ATTACHMENTS = 256;
/** How deep `fileRefsIn` looks into a value for file references (e.g. `input.files[0].ref` is depth 3). */
const MAX_SEARCH_DEPTH = 8;

/**
 * The files an llm or agent node's `attachments` expression names: a FileRef, a list of them, or
 * any value holding them (`input`, `input.files`). Anything else is the definition's or the
 * caller's mistake, said with the field's name, never a file silently dropped.
 */
export function nodeAttachments(nodeId: string, expression: string | undefined, state: Readonly<Record<string, unknown>>): FileRef[] {
  if (expression === undefined) return [];
  const value = evaluateValue(expression, state);
  if (value === null || value === undefined) return [];
  const refs = fileRefsIn(value);
  if (refs.length === 0 && !isEmptyList(value)) {
    throw new SpindleError(
      'validation_failed',
      `node "${nodeId}": attachments ("${expression}") is ${describe(value)}, not a file reference or a list of them`,
    );
  }
  if (refs.length > MAX_NODE_ATTACHMENTS) {
    throw new SpindleError(
      'validation_failed',
      `node "${nodeId}": attachments names ${refs.length} files, over MAX_NODE_ATTACHMENTS (${MAX_NODE_ATTACHMENTS})`,
    );
  }
  return refs;
}

/**
 * Every file reference in a value (a run input, a tool result), in order, each file once. A part a
 * caller wrote (`{type:'file', fileId}` without media type and hash) is not one: only references
 * the gateway resolved against the tenant's files are.
 */
export function fileRefsIn(value: unknown): FileRef[] {
  // One past the call's limit, so a value holding too many is told apart from one holding just enough.
  return findFileRefs(value, { maxDepth: MAX_SEARCH_DEPTH, maxRefs: MAX_CALL_ATTACHMENTS + 1 });
}

/** The files a model call sends, from all its messages, each once (by fileId). */
export function callAttachments(messages: readonly ChatMessage[]): FileRef[] {
  const found = new Map<string, FileRef>();
  for (const m of messages) {
    if (m.role === 'assistant') continue;
    for (const ref of m.attachments ?? []) if (!found.has(ref.fileId)) found.set(ref.fileId, ref);
  }
  if (found.size > MAX_CALL_ATTACHMENTS) {
    throw new SpindleError(
      'validation_failed',
      `a model call would send ${found.size} files, over MAX_CALL_ATTACHMENTS (${MAX_CALL_ATTACHMENTS})`,
    );
  }
  return [...found.values()];
}

/** `attachments` on a message only when there are some: a message without files hashes as before. */
export function withAttachments<M extends ChatMessage>(message: M, refs: readonly FileRef[]): M {
  return refs.length > 0 ? { ...message, attachments: [...refs] } : message;
}

/** `{ attachments }` for a node's prepared input only when there are files: inputs without them log as before. */
export function attachmentsField(refs: FileRef[]): { attachments?: FileRef[] } {
  return refs.length > 0 ? { attachments: refs } : {};
}

function isEmptyList(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `a list of ${value.length} values without file references`;
  if (typeof value === 'object') return 'an object without file references';
  return `a ${typeof value}`;
}
