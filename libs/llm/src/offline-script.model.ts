import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { sleep, SpindleError } from '@spindle/contracts';
import type { ModelScript, ScriptTurn } from '@spindle/engine';
import { promptUsage, splitWords } from './offline-echo.model';

export const OFFLINE_SCRIPT_MODEL_ID = 'script';

/**
 * `offline:script`: a network-free model that says what the definition's `script` tells it (tool calls
 * or a final answer, turn by turn; see the engine's model-script.schema.ts for how a turn is chosen). A
 * real `LanguageModelV3` like `offline:echo`, so tool calls, streaming, usage and aborts take the same
 * path through the AI SDK as a provider's. A conversation the script has no turn for is refused with
 * `model_script_exhausted` (never retried: the same script cannot say more the next time).
 */
export class OfflineScriptModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'offline';
  readonly modelId = OFFLINE_SCRIPT_MODEL_ID;
  readonly supportedUrls = {};

  constructor(
    private readonly script: ModelScript,
    private readonly chunkDelayMs = 0,
  ) {}

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    options.abortSignal?.throwIfAborted();
    const reply = scriptedReply(this.script, options.prompt);
    const content: LanguageModelV3Content[] = [
      ...(reply.reasoning !== undefined ? [{ type: 'reasoning' as const, text: reply.reasoning }] : []),
      ...(reply.calls.length > 0 ? reply.calls : [{ type: 'text' as const, text: reply.text }]),
    ];
    return { content, finishReason: finishOf(reply), usage: promptUsage(options.prompt, reply.text), warnings: [] };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const signal = options.abortSignal;
    signal?.throwIfAborted();
    const reply = scriptedReply(this.script, options.prompt);
    const parts: LanguageModelV3StreamPart[] = [
      ...(reply.reasoning !== undefined
        ? [
            { type: 'reasoning-start', id: 'r0' } as const,
            ...splitWords(reply.reasoning).map((delta): LanguageModelV3StreamPart => ({ type: 'reasoning-delta', id: 'r0', delta })),
            { type: 'reasoning-end', id: 'r0' } as const,
          ]
        : []),
      ...(reply.calls.length > 0
        ? reply.calls
        : [
            { type: 'text-start', id: '0' } as const,
            ...splitWords(reply.text).map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: '0', delta })),
            { type: 'text-end', id: '0' } as const,
          ]),
    ];
    parts.push({ type: 'finish', finishReason: finishOf(reply), usage: promptUsage(options.prompt, reply.text) });
    const delayMs = this.chunkDelayMs;
    let i = 0;
    // Pull-based like offline:echo: one part per request from the consumer, so an abort stops it at the next part.
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
      },
      async pull(controller) {
        try {
          const part = parts[i++];
          if (part.type === 'text-delta' || part.type === 'reasoning-delta') {
            await sleep(delayMs, signal);
            signal?.throwIfAborted();
          }
          controller.enqueue(part);
          if (i === parts.length) controller.close();
        } catch (e) {
          controller.error(e); // the abort reason, exactly as given
        }
      },
    });
    return { stream };
  }
}

interface ScriptedReply {
  text: string;
  reasoning?: string;
  calls: Array<{ type: 'tool-call'; toolCallId: string; toolName: string; input: string }>;
}

/** The turn for this conversation, as the reply the model gives. */
export function scriptedReply(script: ModelScript, prompt: LanguageModelV3Prompt): ScriptedReply {
  const turn = pickTurn(script, prompt);
  const reasoning = turn.reasoning !== undefined ? { reasoning: turn.reasoning } : {};
  if (turn.calls === undefined) {
    return { text: typeof turn.answer === 'string' ? turn.answer : JSON.stringify(turn.answer), calls: [], ...reasoning };
  }
  const position = assistantTurns(prompt) + 1;
  return {
    ...reasoning,
    text: '',
    calls: turn.calls.map((call, i) => ({
      type: 'tool-call',
      toolCallId: `script-${position}-${i + 1}`,
      toolName: call.tool,
      input: JSON.stringify(call.args),
    })),
  };
}

/** The candidate (a turn whose `when` the user messages contain, or that has none) at the position of the assistant turns so far. */
export function pickTurn(script: ModelScript, prompt: LanguageModelV3Prompt): ScriptTurn {
  const said = userText(prompt);
  const candidates = script.filter((turn) => turn.when === undefined || said.includes(turn.when));
  const position = assistantTurns(prompt);
  const turn = candidates[position];
  if (turn !== undefined) return turn;
  throw new SpindleError(
    'model_script_exhausted',
    `offline:script has no turn ${position + 1} for this conversation: ` +
      `${candidates.length} of its ${script.length} turns apply to it (the others' "when" text is not in the conversation)`,
  );
}

function assistantTurns(prompt: LanguageModelV3Prompt): number {
  return prompt.filter((m) => m.role === 'assistant').length;
}

function userText(prompt: LanguageModelV3Prompt): string {
  return prompt
    .filter((m) => m.role === 'user')
    .flatMap((m) => m.content.map((p) => (p.type === 'text' ? p.text : '')))
    .join('\n');
}

function finishOf(reply: ScriptedReply): { unified: 'stop' | 'tool-calls'; raw: string } {
  return reply.calls.length > 0 ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' };
}
