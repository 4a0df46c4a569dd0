import { isFileRef, type ErrorInfo, type FileRef, type RunEvent, type RunEventOf, type Usage } from '@spindle/contracts';
import { messageHash } from '@spindle/engine/browser';

/** One piece of a message, drawn as its own block. */
export type ConversationBlock =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'tool-call'; callId: string; name: string; arguments: unknown }
  | { kind: 'tool-result'; callId: string; name: string; result: unknown; isError: boolean }
  /** A file the message carried, by reference (the console fetches its bytes to show it). */
  | { kind: 'file'; file: FileRef }
  /** An earlier message the call sent that this run's log does not hold (a thread's memory from another run). */
  | { kind: 'missing'; hash: string };

export interface ConversationMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  blocks: ConversationBlock[];
  /** Sent again from earlier in the conversation (logged by an earlier call), not new in this call. */
  earlier: boolean;
}

/** A model call as the model saw it and answered: what was sent, what came back, what it cost. */
export interface Conversation {
  model: string;
  responseModel?: string;
  tools: string[];
  /** Every file the call sent (from any of its messages), each once. */
  attachments: FileRef[];
  messages: ConversationMessage[];
  /** Absent while the call is in flight, or when it failed. */
  response?: ConversationMessage;
  finishReason?: string;
  usage?: Usage;
  error?: ErrorInfo;
  durationMs?: number;
}

/**
 * The conversation of the model call logged under `spanId`, from the log alone. A call logs only
 * the messages it added, and the earlier ones by hash: those are found in the calls before it.
 */
export function conversationOf(events: readonly RunEvent[], spanId: string): Conversation | undefined {
  const byHash = new Map<string, ConversationMessage>();
  let conversation: Conversation | undefined;
  for (const event of events) {
    if (event.spanId !== spanId) {
      if (event.type === 'model.started') rememberMessages(byHash, event);
      continue;
    }
    if (event.type === 'model.started') conversation = opened(event, byHash);
    else if (conversation && event.type === 'model.completed') closed(conversation, event);
    else if (conversation && event.type === 'model.failed') {
      conversation.error = event.data.error;
      conversation.durationMs = event.data.durationMs;
    }
  }
  return conversation;
}

function opened(event: RunEventOf<'model.started'>, byHash: Map<string, ConversationMessage>): Conversation {
  const { data } = event;
  const messages: ConversationMessage[] = [];
  if (data.system !== undefined) messages.push({ role: 'system', blocks: [{ kind: 'text', text: data.system }], earlier: false });
  for (const hash of data.history ?? [])
    messages.push({ ...(byHash.get(hash) ?? { role: 'user', blocks: [{ kind: 'missing', hash }] }), earlier: true });
  // A single-prompt call's files are its prompt's: the call's `attachments` are those of its one message.
  if (data.prompt !== undefined) messages.push(messageOf(promptMessage(data)));
  for (const m of data.messages ?? []) messages.push(messageOf(m));
  return { model: data.model, tools: data.tools ?? [], attachments: data.attachments ?? [], messages };
}

function closed(conversation: Conversation, event: RunEventOf<'model.completed'>) {
  const { data } = event;
  const blocks: ConversationBlock[] = [];
  if (data.reasoning) blocks.push({ kind: 'reasoning', text: data.reasoning });
  if (data.text) blocks.push({ kind: 'text', text: data.text });
  for (const call of data.toolCalls ?? []) blocks.push({ kind: 'tool-call', callId: call.id, name: call.name, arguments: call.arguments });
  conversation.response = { role: 'assistant', blocks, earlier: false };
  conversation.finishReason = data.finishReason;
  conversation.usage = data.usage;
  conversation.durationMs = data.durationMs;
  if (data.responseModel) conversation.responseModel = data.responseModel;
}

/**
 * The messages a call added, by the hash later calls name them with. A single-prompt call logs
 * its prompt without one: its hash is the engine's (`messageHash`) of the message it sent.
 */
function rememberMessages(byHash: Map<string, ConversationMessage>, event: RunEventOf<'model.started'>) {
  const { prompt, messages = [] } = event.data;
  if (prompt !== undefined) {
    const message = promptMessage(event.data);
    byHash.set(messageHash(message), messageOf(message));
  }
  for (const logged of messages) if (typeof logged.hash === 'string') byHash.set(logged.hash, messageOf(logged));
}

/** `2 · image/png, application/pdf`: how many files a call sent and of which media types. */
export function attachmentSummary(files: readonly FileRef[]): string {
  return `${files.length} · ${[...new Set(files.map((f) => f.mediaType))].join(', ')}`;
}

/** The message a single-prompt call sent, as the engine hashed it. */
function promptMessage(data: RunEventOf<'model.started'>['data']): { role: 'user'; content: string; attachments?: FileRef[] } {
  const content = data.prompt ?? '';
  return data.attachments?.length ? { role: 'user', content, attachments: data.attachments } : { role: 'user', content };
}

/** The files a logged message carried, each a block after its text. */
function fileBlocks(logged: Record<string, unknown>): ConversationBlock[] {
  const files = Array.isArray(logged.attachments) ? logged.attachments.filter(isFileRef) : [];
  return files.map((file) => ({ kind: 'file', file }));
}

/** A logged chat message (`role`, `content`, tool calls or the call it answers, files) as blocks. */
function messageOf(logged: Record<string, unknown>): ConversationMessage {
  const content = typeof logged.content === 'string' ? logged.content : '';
  if (logged.role === 'tool') {
    const block: ConversationBlock = {
      kind: 'tool-result',
      callId: String(logged.toolCallId ?? ''),
      name: String(logged.toolName ?? ''),
      result: parsedOrText(content),
      isError: logged.isError === true,
    };
    return { role: 'tool', blocks: [block, ...fileBlocks(logged)], earlier: false };
  }
  const blocks: ConversationBlock[] = content ? [{ kind: 'text', text: content }] : [];
  const calls = Array.isArray(logged.toolCalls) ? (logged.toolCalls as Array<Record<string, unknown>>) : [];
  for (const call of calls)
    blocks.push({ kind: 'tool-call', callId: String(call.id ?? ''), name: String(call.name ?? ''), arguments: call.arguments });
  blocks.push(...fileBlocks(logged));
  return { role: logged.role === 'assistant' ? 'assistant' : 'user', blocks, earlier: false };
}

/** A tool's result is JSON text: shown as the value it encodes, or as the text when it is not JSON. */
function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
