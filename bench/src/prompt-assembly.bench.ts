import { performance } from 'node:perf_hooks';
import { assemblePrompt, contextBudget, promptTokens, type ChatMessage, type ContextBudget, type PromptInput } from '@spindle/engine';
import { median } from './stats';

export interface PromptAssemblyCost {
  case: string;
  messages: number;
  tokensBefore: number;
  tokensAfter: number;
  cuts: number;
  /** Median ms per call: `cold` with messages never counted before, `warm` as an agent's next turn (counts memoized by message). */
  coldMs: number;
  warmMs: number;
}

/**
 * What fitting a prompt to its budget costs a model call, in process: `assemblePrompt` on a long
 * conversation (200 turns with tool calls), within the window (counted, nothing cut) and over an
 * 8k budget (old turns dropped), on a 200 KB tool result of the current turn cut to fit, and on a short prompt (the
 * byte bound skips the tokenizer).
 */
export function measurePromptAssembly(samples = 30): PromptAssemblyCost[] {
  const conversation = (turns: number, toolBytes: number) => () => longConversation(turns, toolBytes);
  const cases: Array<[string, () => PromptInput, ContextBudget]> = [
    [
      'short prompt, gpt-4o window',
      () => ({ system: 'Be brief.', messages: [{ role: 'user', content: 'Where is A-1002?' }], promptIndex: 0 }),
      gpt4o(),
    ],
    ['200 turns (800 messages), gpt-4o window, fits', conversation(200, 200), gpt4o()],
    ['200 turns (800 messages), 8k budget, history cut', conversation(200, 200), budget(8_000)],
    ['a 200 KB tool result in this turn, 8k budget, result cut', bigResult, budget(8_000)],
  ];
  return cases.map(([name, make, b]) => {
    const probe = make();
    const fitted = assemblePrompt(probe, b);
    const cold: number[] = [];
    for (let s = 0; s < samples; s++) {
      const input = make();
      const began = performance.now();
      assemblePrompt(input, b);
      cold.push(performance.now() - began);
    }
    const warm: number[] = [];
    for (let s = 0; s < samples; s++) {
      const began = performance.now();
      assemblePrompt(probe, b);
      warm.push(performance.now() - began);
    }
    return {
      case: name,
      messages: probe.messages.length,
      tokensBefore: promptTokens(probe.system, probe.messages),
      tokensAfter: promptTokens(probe.system, fitted.messages),
      cuts: fitted.cuts.length,
      coldMs: median(cold),
      warmMs: median(warm),
    };
  });
}

const gpt4o = () => contextBudget('openai:gpt-4o')!;
const budget = (limit: number): ContextBudget => ({ ...gpt4o(), limit });

/** The newest question, the call it led to and the call's 200 KB result: this turn's own, so only the result can be cut. */
let fresh = 0;
function bigResult(): PromptInput {
  // Another export each time: a cold call must not find the text's encoding remembered.
  const { system, messages } = longConversation(1, 200_000, ++fresh);
  return { system, messages: [messages[4], messages[1], messages[2]], promptIndex: 0 };
}

/** `turns` remembered turns (question, tool call, tool result, answer), then the newest question. */
function longConversation(turns: number, toolBytes: number, seed = 0): PromptInput {
  const messages: ChatMessage[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push(
      { role: 'user', content: `Question ${i}: where is order A-${1000 + i}, and when was it placed? Please check the carrier too.` },
      { role: 'assistant', content: '', toolCalls: [{ id: `c${i}`, name: 'lookup_order', arguments: { orderId: `A-${1000 + i}` } }] },
      { role: 'tool', toolCallId: `c${i}`, toolName: 'lookup_order', content: toolResult(i + seed, toolBytes) },
      { role: 'assistant', content: `Order A-${1000 + i} shipped with DHL on day ${i % 28}; it should arrive within three days.` },
    );
  }
  messages.push({ role: 'user', content: 'And the newest order?' });
  return { system: 'You answer questions about orders. Use the tools.', messages, promptIndex: messages.length - 1 };
}

function toolResult(i: number, bytes: number): string {
  const row = (n: number) => `{"id":"H-${100000 + n}","status":"delivered","note":"Order ${n} arrived without incident."}`;
  const rows: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) size += (rows[rows.length] = row(i * 1000 + n)).length + 1;
  return `[${rows.join(',')}]`;
}
