import { createHash } from 'node:crypto';
import type { Principal } from '@spindle/contracts';
import type { ThreadRepository } from '@spindle/control-plane';
import type { AgentWorkflow } from './agent-run';

/** Crockford's base32, as ULIDs (and so thread ids) are written. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The protocols whose own conversation ids become Spindle threads. */
export type ThreadProtocol = 'ui-chat' | 'ag-ui';

/**
 * The thread a protocol's conversation id names: the same id for the same protocol, tenant,
 * workflow and conversation, in the form of a thread id. No table maps one to the other, so any
 * gateway finds the thread from the id alone.
 */
export function protocolThreadId(protocol: ThreadProtocol, tenant: string, workflow: string, conversationId: string): string {
  const digest = createHash('sha256').update(`${protocol}\n${tenant}\n${workflow}\n${conversationId}`).digest();
  let id = '';
  for (let i = 0; i < 26; i++) id += CROCKFORD[digest[i]! % 32];
  return `thr_${id}`;
}

/** The conversation's thread, made on its first message (metadata names the conversation). */
export async function openProtocolThread(
  threads: ThreadRepository,
  caller: Principal,
  protocol: ThreadProtocol,
  workflow: AgentWorkflow,
  conversationId: string,
  metadata: Record<string, unknown>,
): Promise<string> {
  const threadId = protocolThreadId(protocol, caller.tenant, workflow.name, conversationId);
  if (await threads.find(caller.tenant, threadId)) return threadId;
  await threads.create(threadId, caller.tenant, { ...metadata, workflow: workflow.name }, caller.actor).catch(async (e: unknown) => {
    // Two first messages at once: the other made it.
    if (!(await threads.find(caller.tenant, threadId))) throw e;
  });
  return threadId;
}
