import type { ChatMessage } from '../ports';
import { sha256Hex } from './sha256';

/** A message's content hash: how later model spans refer to it without copying it again. */
export function messageHash(message: ChatMessage): string {
  return sha256Hex(JSON.stringify(message)).slice(0, 16);
}
