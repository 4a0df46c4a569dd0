import { SpindleError, type RunEvent } from '@spindle/contracts';
import { promptTokens } from '../context/tokens';
import { validateDefinition } from '../definition/validate-definition';
import { compilePattern } from '../patterns/compile-pattern';
import { sequentialPatternSchema } from '../patterns/pattern-definition.schema';
import { messageHash } from '../hashing/message-hash';
import { executeRun, type RunStart } from '../interpreter/execute-run';
import { recordingEnvironment, scriptedModel, toolCalls } from '../testing/in-process-ports';
import type { ChatMessage } from '../ports';

const sentences = (n: number, word: string) => Array.from({ length: n }, (_, i) => `Record ${i} mentions ${word}.`).join(' ');
/** 200 KB of tool output, and a remembered conversation of 30 turns. */
const bigResult = { rows: sentences(8_000, 'shipping') };
const history: ChatMessage[] = Array.from({ length: 30 }, (_, i): ChatMessage[] => [
  { role: 'user', content: `Earlier question ${i}: ${sentences(20, 'orders')}` },
  { role: 'assistant', content: `Earlier answer ${i}.` },
]).flat();
const BUDGET = 3_000;

const definition = (extra: Record<string, unknown> = {}) => ({
  kind: 'graph',
  nodes: [
    {
      id: 'support',
      type: 'agent',
      model: 'offline:script',
      script: [{ answer: 'unused' }],
      instructions: 'Help with orders.',
      tools: ['export_orders'],
      memory_key: 'messages',
      context: { max_input_tokens: BUDGET, strategy: 'sentence' },
      ...extra,
    },
  ],
});
const start = (extra: Partial<RunStart> = {}): RunStart => ({
  definition: validateDefinition(definition()),
  state: { input: 'Export my orders, please.', messages: history },
  attempt: 1,
  worker: 'w1',
  ...extra,
});
const tools = { export_orders: () => bigResult };
const cutsOf = (events: RunEvent[]) => events.filter((e) => e.type === 'context.truncated');

describe('an agent with a context budget', () => {
  it('fits every call: the tool result and the history are cut, each cut a child span before the call it shapes', async () => {
    const model = scriptedModel([toolCalls({ name: 'export_orders', arguments: {} }), 'Here is the summary.']);
    const { env, events } = recordingEnvironment({ model, tools });
    expect(await executeRun(start(), env)).toMatchObject({ status: 'completed', output: { output: 'Here is the summary.' } });
    for (const request of model.requests) expect(promptTokens(request.system, request.messages)).toBeLessThanOrEqual(BUDGET);
    const node = events.find((e) => e.type === 'node.started')!;
    const cuts = cutsOf(events);
    expect(cuts.map((e) => [e.data.kind, e.data.target])).toEqual([
      ['history', 'history'],
      ['history', 'history'],
      ['tool_result', 'export_orders'],
    ]);
    for (const cut of cuts) {
      expect(cut).toMatchObject({ nodeId: 'support', parentSpanId: node.spanId });
      expect(cut.data.tokensAfter).toBeLessThan(cut.data.tokensBefore);
      // The very next model.started is the call the cut shaped.
      expect(events.find((e) => e.seq > cut.seq && e.type !== 'context.truncated')?.type).toBe('model.started');
    }
    // What the model saw is in the log: the cut tool result, not the 200 KB one.
    const second = events.filter((e) => e.type === 'model.started')[1].data as unknown as { messages: ChatMessage[] };
    expect(second.messages.at(-1)?.content).toMatch(/\[… truncated \d+ tokens\]$/);
    expect(second.messages.at(-1)?.content.length).toBeLessThan(20_000);
  });

  it('assembles the same prompt on resume: the recorded cuts are re-applied, not appended again', async () => {
    const model = scriptedModel([toolCalls({ name: 'export_orders', arguments: {} }), 'Here is the summary.']);
    const full = recordingEnvironment({ model, tools });
    await executeRun(start(), full.env);
    // The worker died after the second call's cuts were recorded, before the call itself.
    const secondCall = full.events.filter((e) => e.type === 'model.started')[1];
    const prior = full.events.slice(0, secondCall.seq - 1);
    expect(prior.at(-1)?.type).toBe('context.truncated');
    const again = scriptedModel(['Here is the summary.']);
    const resumed = recordingEnvironment({ prior, model: again, tools });
    const outcome = await executeRun(start({ attempt: 2, resume: { reason: 'worker_lost' } }), resumed.env);
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(cutsOf(resumed.events.slice(prior.length))).toEqual([]);
    expect(again.requests[0].messages.map(messageHash)).toEqual(model.requests[1].messages.map(messageHash));
    const logged = (events: RunEvent[]) => events.filter((e) => e.type === 'model.started').at(-1)?.data;
    expect(logged(resumed.events)).toEqual(logged(full.events));
  });

  it('fails before any provider call when the system prompt and newest message alone are over the budget', async () => {
    const model = scriptedModel(['never']);
    const { env, events } = recordingEnvironment({ model, tools });
    const wordy = validateDefinition(definition({ instructions: sentences(2_000, 'rules') }));
    const outcome = await executeRun(start({ definition: wordy }), env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'context_budget_exceeded', nodeId: 'support' } });
    expect(model.requests).toEqual([]);
    expect(events.some((e) => e.type === 'model.started')).toBe(false);
  });

  it('cuts an llm node prompt field, kind retrieval for a retrieve result', async () => {
    const kb = {
      query: 'q',
      knowledgeBase: 'docs',
      chunks: [{ id: 'c', source: 'a.md', score: 0.9, tokens: 1, text: sentences(2_000, 'kb') }],
    };
    const llm = {
      kind: 'graph',
      nodes: [
        { id: 'ask', type: 'llm', model: 'offline:echo', prompt: 'Answer {{input}} from {{kb}}', context: { max_input_tokens: 500 } },
      ],
    };
    const model = scriptedModel(['ok']);
    const { env, events } = recordingEnvironment({ model });
    await executeRun({ definition: validateDefinition(llm), state: { input: 'why?', kb }, attempt: 1, worker: 'w' }, env);
    expect(cutsOf(events).map((e) => [e.data.kind, e.data.target])).toEqual([['retrieval', 'kb']]);
    expect(model.requests[0].messages[0].content.startsWith('Answer why? from [1] (a.md) ')).toBe(true);
    expect(promptTokens(undefined, model.requests[0].messages)).toBeLessThanOrEqual(500);
  });
});

describe('memory compaction', () => {
  const remembering = (memory: Record<string, unknown>) =>
    validateDefinition(definition({ tools: [], context: undefined, memory, model: 'offline:script', script: [{ answer: 'x' }] }));

  it('replaces the oldest turns by a model-written summary past max_messages, and records it', async () => {
    const model = scriptedModel(['Fine.', 'They asked about orders 0 to 27.']);
    const { env, events } = recordingEnvironment({ model });
    const outcome = await executeRun(
      {
        definition: remembering({ max_messages: 6, summarize: { model: 'offline:echo' } }),
        state: { input: 'And now?', messages: history },
        attempt: 1,
        worker: 'w',
      },
      env,
    );
    const messages = (outcome as unknown as { output: { messages: ChatMessage[] } }).output.messages;
    expect(messages[0]).toEqual({ role: 'user', content: 'Summary of the earlier conversation: They asked about orders 0 to 27.' });
    expect(messages.length).toBeLessThanOrEqual(6);
    expect(messages.slice(-2)).toEqual([
      { role: 'user', content: 'And now?' },
      { role: 'assistant', content: 'Fine.' },
    ]);
    // The summary is a model call of its own, over the dropped turns.
    expect(model.requests[1]).toMatchObject({ model: 'offline:echo' });
    expect(model.requests[1].messages[0].content).toContain('user: Earlier question 0');
    const compacted = events.find((e) => e.type === 'memory.compacted');
    expect(compacted?.data).toMatchObject({
      memoryKey: 'messages',
      trigger: 'messages',
      messagesBefore: 62,
      messagesAfter: messages.length,
      summary: 'They asked about orders 0 to 27.',
      summaryModel: 'offline:echo',
    });
    expect(compacted!.seq).toBeGreaterThan(events.filter((e) => e.type === 'model.completed')[1].seq);
  });

  it('does not summarize or record the compaction again when a resumed node already did', async () => {
    const definition = remembering({ max_messages: 6, summarize: { model: 'offline:echo' } });
    const state = { input: 'And now?', messages: history };
    const first = recordingEnvironment({ model: scriptedModel(['Fine.', 'They asked about orders.']) });
    const done = await executeRun({ definition, state, attempt: 1, worker: 'w' }, first.env);
    // The worker died after the compaction was recorded, before the node completed.
    const prior = first.events.slice(0, first.events.find((e) => e.type === 'memory.compacted')!.seq);
    const again = scriptedModel([]);
    const resumed = recordingEnvironment({ prior, model: again });
    const outcome = await executeRun({ definition, state, attempt: 2, worker: 'w2', resume: { reason: 'worker_lost' } }, resumed.env);
    expect(outcome).toEqual(done);
    expect(again.requests).toEqual([]);
    expect(resumed.events.slice(prior.length).some((e) => e.type === 'memory.compacted' || e.type === 'model.started')).toBe(false);
  });

  it('drops the oldest whole turns past max_tokens, and keeps memory_max_messages as the count trigger', async () => {
    const run = async (memory: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) => {
      const { env, events } = recordingEnvironment({ model: scriptedModel(['Fine.']) });
      const def = validateDefinition(definition({ tools: [], context: undefined, ...(memory ? { memory } : {}), ...extra }));
      const outcome = await executeRun({ definition: def, state: { input: 'And now?', messages: history }, attempt: 1, worker: 'w' }, env);
      return { messages: (outcome as unknown as { output: { messages: ChatMessage[] } }).output.messages, events };
    };
    const byTokens = await run({ max_tokens: 400 });
    expect(byTokens.messages.length).toBeLessThan(62);
    expect(byTokens.messages[0].role).toBe('user');
    expect(byTokens.events.find((e) => e.type === 'memory.compacted')?.data).toMatchObject({ trigger: 'tokens', messagesBefore: 62 });
    expect((byTokens.events.find((e) => e.type === 'memory.compacted')?.data as { tokensAfter: number }).tokensAfter).toBeLessThanOrEqual(
      400,
    );
    const byCount = await run(undefined, { memory_max_messages: 10 });
    expect(byCount.messages).toHaveLength(10);
    expect(byCount.events.find((e) => e.type === 'memory.compacted')?.data).toMatchObject({ trigger: 'messages', messagesAfter: 10 });
  });
});

describe('budget and memory fields', () => {
  const issues = (def: unknown) => {
    try {
      validateDefinition(def);
    } catch (e) {
      return (e as SpindleError).issues ?? [];
    }
    return [];
  };

  it('refuses a reserve that leaves no room in the window, and memory without memory_key, naming the field', () => {
    expect(issues(definition({ model: 'openai:gpt-4o', script: undefined, context: { reserve_output_tokens: 128_000 } }))).toContainEqual(
      expect.objectContaining({ field: 'nodes[0].context.reserve_output_tokens', message: expect.stringContaining('128000') }),
    );
    expect(issues(definition({ memory_key: undefined, memory: { max_tokens: 1_000 } }))).toContainEqual(
      expect.objectContaining({ field: 'nodes[0].memory' }),
    );
    expect(issues(definition({ context: { max_input_tokens: 0 } }))).toContainEqual(
      expect.objectContaining({ field: 'nodes[0].context.max_input_tokens' }),
    );
  });

  it('gives pattern agents memory_key, memory and context', () => {
    const graph = compilePattern(
      sequentialPatternSchema.parse({
        kind: 'sequential',
        agents: [
          { name: 'writer', model: 'offline:echo', memory_key: 'notes', memory: { max_tokens: 500 }, context: { max_input_tokens: 900 } },
        ],
      }),
    );
    expect(graph.nodes.find((n) => n.id === 'writer')).toMatchObject({
      memory_key: 'notes',
      memory: { max_tokens: 500 },
      context: { max_input_tokens: 900 },
    });
  });
});
