import { canonicalJson, type RunEventOf } from '@spindle/contracts';
import { messageHash } from '../hashing/message-hash';
import { sha256Hex } from '../hashing/sha256';

export type ModelStartedData = RunEventOf<'model.started'>['data'];

/**
 * The messages a model call sent, by content hash, read from its `model.started`: a single
 * prompt is one user message; otherwise the earlier messages by hash, then the added ones.
 */
export function sentMessageHashes(started: ModelStartedData): string[] {
  if (started.prompt !== undefined) return [messageHash({ role: 'user', content: started.prompt })];
  const added = (started.messages ?? []).map((m) => String(m['hash']));
  return [...(started.history ?? []), ...added];
}

/**
 * What makes two model calls the same call, from what the log says of each: the model, the
 * system prompt, every message sent (by hash) and the tools offered, in order. Both sides of a
 * replay read it from the same `model.started` shape, so they cannot disagree on how to hash.
 */
export function modelCallFingerprint(started: ModelStartedData): string {
  return sha256Hex(
    canonicalJson({
      model: started.model,
      system: started.system ?? null,
      messages: sentMessageHashes(started),
      tools: started.tools ?? [],
    }),
  );
}

/** A tool call is the same call when it names the same tool with the same arguments (canonical JSON). */
export function toolCallFingerprint(name: string, args: Record<string, unknown>): string {
  return sha256Hex(canonicalJson({ name, arguments: args }));
}
