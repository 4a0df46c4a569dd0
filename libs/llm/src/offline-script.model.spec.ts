import { isSpindleError } from '@spindle/contracts';
import { modelScriptSchema, type ChatMessage, type ModelRequest, type ModelScript, type ToolSpec } from '@spindle/engine';
import { createModelPort } from './model-router';

const calculator: ToolSpec = {
  name: 'calculator',
  description: 'Arithmetic',
  inputSchema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
};

/** Parsed like a definition's script, so defaults (`args: {}`) are applied as the engine would. */
const script = (turns: unknown): ModelScript => modelScriptSchema.parse(turns);

const toolLoop = script([
  {
    calls: [
      { tool: 'calculator', args: { expression: '6*7' } },
      { tool: 'calculator', args: { expression: '1+1' } },
    ],
  },
  { answer: 'The answer is 42.' },
]);

const asked: ChatMessage = { role: 'user', content: 'What is six times seven?' };
const afterTools: ChatMessage[] = [
  asked,
  {
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'script-1-1', name: 'calculator', arguments: { expression: '6*7' } },
      { id: 'script-1-2', name: 'calculator', arguments: { expression: '1+1' } },
    ],
  },
  { role: 'tool', toolCallId: 'script-1-1', toolName: 'calculator', content: '42' },
  { role: 'tool', toolCallId: 'script-1-2', toolName: 'calculator', content: '2' },
];

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'offline:script',
    script: toolLoop,
    messages: [asked],
    tools: [calculator],
    stream: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe.each([false, true])('offline:script (stream: %s)', (stream) => {
  const port = createModelPort({});

  it('answers the first turn with its tool calls, ids numbered by turn, arguments as written', async () => {
    const onDelta = jest.fn();
    const result = await port.generate(request({ stream, onDelta }));

    expect(result.toolCalls).toEqual([
      { id: 'script-1-1', name: 'calculator', arguments: { expression: '6*7' } },
      { id: 'script-1-2', name: 'calculator', arguments: { expression: '1+1' } },
    ]);
    expect(result.text).toBe('');
    expect(result.finishReason).toBe('tool-calls');
    expect(onDelta).not.toHaveBeenCalled();
    // input: the prompt's 5 words; nothing said
    expect(result.usage).toEqual({ inputTokens: 5, outputTokens: 0, totalTokens: 5, costUsd: 0 });
  });

  it('gives the final answer once the conversation holds one assistant turn, streamed word by word when asked', async () => {
    const deltas: string[] = [];
    const result = await port.generate(request({ stream, messages: afterTools, onDelta: (d) => deltas.push(d) }));

    expect(result.text).toBe('The answer is 42.');
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReason).toBe('stop');
    expect(deltas).toEqual(stream ? ['The ', 'answer ', 'is ', '42.'] : []);
    expect(result.usage.outputTokens).toBe(4);
  });

  it('shows a turn’s reasoning before its calls or answer, streamed as reasoning when asked', async () => {
    const thinking = script([
      { reasoning: 'Multiply first.', calls: [{ tool: 'calculator', args: { expression: '6*7' } }] },
      { reasoning: 'It said 42.', answer: 'The answer is 42.' },
    ]);
    const parts: string[] = [];
    const first = await port.generate(request({ stream, script: thinking, onDelta: (d, part) => parts.push(`${part}:${d}`) }));
    expect([first.reasoning, first.toolCalls.map((c) => c.name)]).toEqual(['Multiply first.', ['calculator']]);
    const second = await port.generate(request({ stream, script: thinking, messages: afterTools }));
    expect([second.reasoning, second.text]).toEqual(['It said 42.', 'The answer is 42.']);
    expect(parts).toEqual(stream ? ['reasoning:Multiply ', 'reasoning:first.'] : []);
  });

  it('writes a JSON answer as JSON text (a structured answer, a manager choosing a speaker)', async () => {
    const result = await port.generate(request({ stream, script: script([{ answer: { next: 'critic', reason: 'a draft exists' } }]) }));

    expect(JSON.parse(result.text)).toEqual({ next: 'critic', reason: 'a draft exists' });
  });

  it('picks among the turns whose "when" the user messages contain, first match first', async () => {
    const manager = script([
      { when: '"agent":"critic"', answer: 'FINISH' },
      { when: '"agent":"writer"', answer: 'critic' },
      { answer: 'writer' },
    ]);
    const ask = async (transcript: unknown[]) =>
      (
        await port.generate(
          request({ stream, script: manager, messages: [{ role: 'user', content: `So far: ${JSON.stringify(transcript)}` }] }),
        )
      ).text;

    expect(await ask([])).toBe('writer');
    expect(await ask([{ agent: 'writer', text: 'a draft' }])).toBe('critic');
    expect(await ask([{ agent: 'writer' }, { agent: 'critic' }])).toBe('FINISH');
  });

  it('refuses a conversation it has no turn for with model_script_exhausted, saying how many turns apply', async () => {
    const short = script([{ calls: [{ tool: 'calculator', args: { expression: '1' } }] }]);
    const error = await port.generate(request({ stream, script: short, messages: afterTools })).catch((e: unknown) => e);

    expect(isSpindleError(error) && error.code).toBe('model_script_exhausted');
    expect(isSpindleError(error) && error.retryable).toBe(false);
    expect((error as Error).message).toBe(
      'offline:script has no turn 2 for this conversation: 1 of its 1 turns apply to it ' +
        `(the others' "when" text is not in the conversation)`,
    );
  });

  it('rejects with the abort reason when the call is aborted first', async () => {
    const ac = new AbortController();
    const reason = new Error('cancelled by test');
    ac.abort(reason);

    await expect(port.generate(request({ stream, signal: ac.signal }))).rejects.toBe(reason);
  });
});

describe('offline:script resolution', () => {
  const port = createModelPort({});

  it('is unknown_model without a script (a definition check was skipped), and unknown offline ids name both models', async () => {
    const noScript = await port.generate(request({ script: undefined })).catch((e: unknown) => e);
    const unknown = await port.generate(request({ model: 'offline:nope' })).catch((e: unknown) => e);

    expect(isSpindleError(noScript) && noScript.code).toBe('unknown_model');
    expect(isSpindleError(unknown) && unknown.message).toBe(
      "Unknown offline model 'offline:nope'; there are 'offline:echo' and 'offline:script'",
    );
  });
});

describe('the script in a definition', () => {
  it('needs exactly one of calls or answer per turn, naming the field', () => {
    const both = modelScriptSchema.safeParse([{ answer: 'x', calls: [{ tool: 'calculator' }] }]);
    const neither = modelScriptSchema.safeParse([{ when: 'x' }]);

    for (const result of [both, neither]) {
      expect(result.success).toBe(false);
      expect(result.error?.issues.map((i) => i.path)).toEqual([[0, 'answer']]);
    }
  });
});
