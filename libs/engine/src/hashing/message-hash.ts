import { canonicalJson } from '@spindle/contracts';
import type { ChatMessage } from '../ports';
import { sha256Hex } from './sha256';

/**
 * A message's content hash: how later model spans refer to it without copying it again. Its files
 * count by identity and content (sha256), in canonical form (a reference read back from state may
 * order its keys differently); a message without files hashes exactly as before files existed.
 */
export function messageHash(message: ChatMessage): string {
  if (message.role === 'assistant') return sha256Hex(JSON.stringify(message)).slice(0, 16);
  const { attachments, ...rest } = message;
  if (!attachments?.length) return sha256Hex(JSON.stringify(rest)).slice(0, 16);
  const files = attachments.map((f) => canonicalJson({ fileId: f.fileId, mediaType: f.mediaType, sha256: f.sha256 }));
  return sha256Hex(`${JSON.stringify(rest)}\u0000${files.join('\u0000')}`).slice(0, 16);
}
