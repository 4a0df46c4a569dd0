import type { ChatMessage, ToolCall, ToolSpec } from '@spindle/engine';
import { jsonSchema, tool, type JSONSchema7, type JSONValue, type ModelMessage, type ToolResultPart, type ToolSet } from 'ai';

/**
 * Translation between the engine's port types and the AI SDK's, kept apart from the call logic so
 * each direction can be read (and tested through the wire) on its own.
 */

/** The engine's conversation as AI SDK messages; the system prompt travels separately. */
export function toModelMessages(messages: readonly ChatMessage[]): ModelMessage[] {
  return messages.map((m): ModelMessage => {
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
  });
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
