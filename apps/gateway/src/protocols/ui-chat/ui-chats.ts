import type { Context } from '@opentelemetry/api';
import { lastEventOf, type Bus } from '@spindle/bus';
import { isTerminalEvent, SpindleError, uiChatRequestSchema, type Principal, type UiChatRequest, parseBody } from '@spindle/contracts';
import { endsUiMessage, ModelTextStreams, uiMessageChunksOf, uiTextChunkOf, type UiMessageChunk } from '@spindle/projections';
import { isActive, type ThreadRepository } from '@spindle/control-plane';
import type { ThreadRuns } from '../../threads/thread-runs.service';
import type { AgentWorkflow } from '../agent-run';
import type { LiveRunItem, LiveRuns, NewRunFollow } from '../../runs/live-runs';
import { openProtocolThread, protocolThreadId } from '../protocol-threads';

/**
 * The AI SDK's chat protocol over Spindle threads: a chat is a thread of its workflow (its id
 * derived from the chat's), each message a run on it that starts from the state the last one left
 * (an agent with `memory_key` carries the conversation), and the answer the run's log as a UI
 * message stream. A chat reloaded mid-answer resumes that run's stream from its start.
 */
export class UiChats {
  constructor(
    private readonly threads: ThreadRepository,
    private readonly threadRuns: ThreadRuns,
    private readonly bus: Bus,
    private readonly live: LiveRuns,
  ) {}

  /**
   * Starts the run that answers the chat's last user message (a run still answering an earlier one
   * is interrupted), and its answer as `chunks` would give it, joined before the run can start.
   */
  async send(
    caller: Principal,
    workflow: AgentWorkflow,
    body: unknown,
    trace: Context,
    gone?: AbortSignal,
  ): Promise<{ runId: string; chunks: AsyncIterable<UiMessageChunk> }> {
    const chat = parseBody(uiChatRequestSchema, body ?? {});
    // Everything checked before the chat's thread is made: a refused message leaves nothing behind.
    const input = lastUserText(chat.messages);
    const threadId = await openProtocolThread(this.threads, caller, 'ui-chat', workflow, chat.id, { chatId: chat.id });
    let follow: NewRunFollow | undefined;
    const accepted = await this.threadRuns
      .start(caller, threadId, { workflow: workflow.name, input, multitaskStrategy: 'interrupt' }, trace, {
        beforeDispatch: (runId) => (follow = this.live.withTokensOfNewRun(runId, gone)).attach(),
      })
      .catch((e: unknown) => {
        follow?.release();
        throw e;
      });
    return { runId: accepted.runId, chunks: answerChunks(accepted.runId, follow?.items ?? this.live.withTokens(accepted.runId, gone)) };
  }

  /** The run answering the chat now, if one is: what a reloaded page resumes. */
  async activeRun(caller: Principal, workflow: AgentWorkflow, chatId: string): Promise<string | undefined> {
    const threadId = protocolThreadId('ui-chat', caller.tenant, workflow.name, chatId);
    if (!(await this.threads.find(caller.tenant, threadId))) return undefined;
    const latest = (await this.threads.runs(threadId)).at(-1);
    if (!latest || !isActive(latest.status)) return undefined;
    // The thread's statuses are a projection and may lag: the log says whether the answer has ended.
    const last = await lastEventOf(this.bus, latest.run_id);
    return last && isTerminalEvent(last.event) ? undefined : latest.run_id;
  }

  /** The run's answer as UI message chunks from its start (a resume gets the whole message) to its end, said as the model says it. */
  chunks(runId: string, gone?: AbortSignal): AsyncIterable<UiMessageChunk> {
    return answerChunks(runId, this.live.withTokens(runId, gone));
  }
}

async function* answerChunks(runId: string, items: AsyncIterable<LiveRunItem>): AsyncIterable<UiMessageChunk> {
  yield { type: 'start', messageId: runId };
  const texts = new ModelTextStreams();
  for await (const item of items) {
    if ('token' in item) {
      yield* texts.token(item.token).map(uiTextChunkOf);
      continue;
    }
    for (const chunk of uiMessageChunksOf(item.event, item.log, texts)) {
      yield chunk;
      if (endsUiMessage(chunk)) return;
    }
  }
}

/** The text of the chat's last user message (its text parts joined). */
function lastUserText(messages: UiChatRequest['messages']): string {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last)
    throw new SpindleError('validation_failed', 'the chat has no user message to answer', {
      issues: [{ field: 'messages', message: 'no user message' }],
    });
  return last.parts.flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : [])).join('\n');
}
