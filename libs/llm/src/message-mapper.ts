import { SpindleError, type FileRef } from '@spindle/contracts';
import type { ChatMessage, ToolCall, ToolSpec } from '@spindle/engine';
import {
  jsonSchema,
  tool,
  type FilePart,
  type ImagePart,
  type JSONSchema7,
  type JSONValue,
  type ModelMessage,
  type ToolResultPart,
  type ToolSet,
  type UserContent,
} from 'ai';

/**
 * Translation between the engine's port types and the AI SDK's, kept apart from the call logic so
 * each direction can be read (and tested through the wire) on its own.
 */

/** Reads a file's bytes by reference; throws `SpindleError('file_not_found')` when they are gone. */
export type FileReader = (ref: FileRef) => Promise<Uint8Array>;

/**
 * The engine's conversation as AI SDK messages; the system prompt travels separately. Files go
 * after a message's text as image parts (image/*) or file parts (anything else), with their bytes
 * read once per call. Tool results cannot carry files on every provider (OpenAI's tool message is
 * text only), so the files of a run of tool results follow them as one user message.
 */
export async function toModelMessages(messages: readonly ChatMessage[], readFile?: FileReader): Promise<ModelMessage[]> {
  const bytes = fileBytes(readFile);
  const out: ModelMessage[] = [];
  let toolFiles: FileRef[] = [];
  for (const m of messages) {
    if (m.role !== 'tool' && toolFiles.length > 0) {
      out.push(await toolFilesMessage(toolFiles, bytes));
      toolFiles = [];
    }
    if (m.role === 'tool') toolFiles.push(...(m.attachments ?? []));
    out.push(m.role === 'user' && m.attachments?.length ? await userWithFiles(m.content, m.attachments, bytes) : toModelMessage(m));
  }
  if (toolFiles.length > 0) out.push(await toolFilesMessage(toolFiles, bytes));
  return out;
}

function toModelMessage(m: ChatMessage): ModelMessage {
  switch (m.role) {
    case 'user':
      return { role: 'user', content: m.content };
    case 'assistant':
      if (!m.toolCalls?.length) return { role: 'assistant', content: m.content };
      return {
        role: 'assistant',
        content: [
          // An empty text part is dropped: Anthropic rejects empty text blocks.
          ...(m.content !== '' ? [{ type: 'text' as const, text: m.content }] : []),
          ...m.toolCalls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: c.arguments })),
        ],
      };
    case 'tool':
      return {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: m.toolCallId, toolName: m.toolName, output: toolOutput(m.content, m.isError === true) },
        ],
      };
  }
}

type BytesOf = (ref: FileRef) => Promise<Uint8Array>;

/** The reader, remembering each file's bytes for the call: a file sent twice is read once. */
function fileBytes(readFile: FileReader | undefined): BytesOf {
  const read = new Map<string, Promise<Uint8Array>>();
  return (ref) => {
    if (readFile === undefined)
      throw new SpindleError('file_not_found', `file ${ref.fileId} cannot be read: this model port has no file store`);
    let bytes = read.get(ref.sha256);
    if (bytes === undefined) read.set(ref.sha256, (bytes = readFile(ref)));
    return bytes;
  };
}

async function userWithFiles(text: string, files: readonly FileRef[], bytes: BytesOf): Promise<ModelMessage> {
  const parts: UserContent = text !== '' ? [{ type: 'text', text }] : [];
  for (const file of files) parts.push(await filePart(file, bytes));
  return { role: 'user', content: parts };
}

function toolFilesMessage(files: readonly FileRef[], bytes: BytesOf): Promise<ModelMessage> {
  const unique = [...new Map(files.map((f) => [f.fileId, f])).values()];
  return userWithFiles('The files the tool results above returned:', unique, bytes);
}

async function filePart(file: FileRef, bytes: BytesOf): Promise<ImagePart | FilePart> {
  const data = await bytes(file);
  if (file.mediaType.startsWith('image/')) return { type: 'image', image: data, mediaType: file.mediaType };
  return { type: 'file', data, mediaType: file.mediaType, filename: file.name ?? file.fileId };
}

/**
 * Tool content is JSON text by contract, but a plugin may hand back plain text: JSON goes out as
 * structured output, anything else verbatim. The error variants let providers that have an error
 * flag (Anthropic's `is_error`) set it; OpenAI just receives the content.
 */
function toolOutput(content: string, isError: boolean): ToolResultPart['output'] {
  let value: JSONValue;
  try {
    value = JSON.parse(content) as JSONValue;
  } catch {
    return { type: isError ? 'error-text' : 'text', value: content };
  }
  return { type: isError ? 'error-json' : 'json', value };
}

/**
 * Tool specs as AI SDK tools WITHOUT `execute`: the SDK then only reports the calls and never runs
 * or loops; the engine runs them (with its own events, timeouts and retries). `jsonSchema` is
 * given no `validate`, so arguments are not checked here: the engine's ToolPort validates them and
 * turns a mismatch into an observation the model can correct.
 */
export function toToolSet(specs: readonly ToolSpec[] | undefined): ToolSet | undefined {
  if (specs === undefined || specs.length === 0) return undefined;
  const tools: ToolSet = {};
  for (const spec of specs) {
    tools[spec.name] = tool({ description: spec.description, inputSchema: jsonSchema(spec.inputSchema as JSONSchema7) });
  }
  return tools;
}

/** The fields of an AI SDK tool call (static or dynamic, valid or `invalid`) that the port needs. */
export interface SdkToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/**
 * An SDK tool call as the port's `ToolCall`. A call to an unknown tool name is passed on (the SDK
 * marks it `invalid`; the engine's ToolPort reports it to the model). Arguments that are not a JSON
 * object (unparseable text, an array) cannot become a `ToolCall`: that is a bad model reply, thrown
 * so it surfaces as a retryable provider_error.
 */
export function toToolCall(call: SdkToolCall): ToolCall {
  const args = call.input;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    const shown = typeof args === 'string' ? args : JSON.stringify(args);
    throw new Error(`the model called tool '${call.toolName}' with arguments that are not a JSON object: ${shown}`);
  }
  return { id: call.toolCallId, name: call.toolName, arguments: args as Record<string, unknown> };
}
