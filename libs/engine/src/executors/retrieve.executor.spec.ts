import { SpindleError, type RunEvent } from '@spindle/contracts';
import { validateDefinition } from '../definition/validate-definition';
import { executeRun, type RunStart } from '../interpreter/execute-run';
import type { RetrievalRequest, RetrieverPort } from '../ports';
import { recordingEnvironment, scriptedModel } from '../testing/in-process-ports';

const definition = {
  kind: 'graph',
  nodes: [
    {
      id: 'search',
      type: 'retrieve',
      knowledgeBase: 'support',
      query: 'refunds for {{input.order}}',
      topK: 2,
      filter: { order: '{{input.order}}', public: true },
    },
    { id: 'answer', type: 'llm', model: 'offline:echo', prompt: 'from {{context.chunks}}', output_key: 'answer' },
  ],
  edges: [{ from: 'search', to: 'answer' }],
};
const start = (extra: Partial<RunStart> = {}): RunStart => ({
  definition: validateDefinition(definition),
  state: { input: { order: 'A-7' } },
  attempt: 1,
  worker: 'w1',
  ...extra,
});
const chunk = (id: string, score: number) => ({ id, source: 'refunds.md', score, tokens: 4, text: `text of ${id}` });

function retriever(answer: () => Promise<{ chunks: ReturnType<typeof chunk>[] }>): RetrieverPort & { asked: RetrievalRequest[] } {
  const asked: RetrievalRequest[] = [];
  return {
    asked,
    async retrieve(request) {
      asked.push(request);
      return { retriever: 'knowledge_base', version: 3, ...(await answer()) };
    },
  };
}

describe('retrieve node', () => {
  it('asks with the rendered query and filter, records retrieval.completed as a child span, and writes the result to context', async () => {
    const port = retriever(async () => ({ chunks: [chunk('c1', 0.9), chunk('c2', 0.5), chunk('c3', 0.1)] }));
    const { env, events } = recordingEnvironment({ retriever: port, model: scriptedModel(['ok']) });
    const outcome = await executeRun(start(), env);
    expect(port.asked).toMatchObject([
      { knowledgeBase: 'support', query: 'refunds for A-7', topK: 2, filter: { order: 'A-7', public: true } },
    ]);
    const node = events.find((e) => e.type === 'node.started' && e.nodeId === 'search')!;
    const retrieval = events.find((e) => e.type === 'retrieval.completed')!;
    expect(retrieval).toMatchObject({
      nodeId: 'search',
      parentSpanId: node.spanId,
      data: {
        retriever: 'knowledge_base',
        knowledgeBase: 'support',
        version: 3,
        query: 'refunds for A-7',
        topK: 2,
        chunkCount: 2,
        topScore: 0.9,
      },
    });
    expect(outcome).toMatchObject({
      status: 'completed',
      output: { context: { query: 'refunds for A-7', knowledgeBase: 'support', chunks: [chunk('c1', 0.9), chunk('c2', 0.5)] } },
    });
  });

  it('takes a resumed node its chunks from the log: no second search, no second event', async () => {
    const first = recordingEnvironment({
      retriever: retriever(async () => ({ chunks: [chunk('c1', 0.8)] })),
      model: scriptedModel(['ok']),
    });
    await executeRun(start(), first.env);
    const cut = first.events.findIndex((e) => e.type === 'retrieval.completed') + 1;
    const prior: RunEvent[] = first.events.slice(0, cut);
    const never = retriever(async () => {
      throw new Error('searched again');
    });
    const resumed = recordingEnvironment({ prior, retriever: never, model: scriptedModel(['ok']) });
    const outcome = await executeRun(start({ attempt: 2, resume: { reason: 'worker_lost' } }), resumed.env);
    expect(outcome).toMatchObject({ status: 'completed', output: { context: { chunks: [chunk('c1', 0.8)] } } });
    expect(never.asked).toEqual([]);
    expect(resumed.events.filter((e) => e.type === 'retrieval.completed')).toHaveLength(1);
  });

  it("fails the node with the retriever's code, and anything else as retrieval_failed, never provider_error", async () => {
    const missing = recordingEnvironment({
      retriever: retriever(async () => {
        throw new SpindleError('knowledge_base_not_found', 'no knowledge base "support"');
      }),
    });
    expect(await executeRun(start(), missing.env)).toMatchObject({
      status: 'failed',
      error: { code: 'knowledge_base_not_found', nodeId: 'search' },
    });
    const broken = recordingEnvironment({
      retriever: retriever(async () => {
        throw new TypeError('socket hang up');
      }),
    });
    expect(await executeRun(start(), broken.env)).toMatchObject({
      status: 'failed',
      error: { code: 'retrieval_failed', nodeId: 'search' },
    });
    expect(broken.events.some((e) => e.type === 'retrieval.completed')).toBe(false);
    const none = recordingEnvironment();
    expect(await executeRun(start(), none.env)).toMatchObject({ status: 'failed', error: { code: 'retrieval_failed' } });
  });

  it('leaves an infrastructure fault to the runner: the run is not failed by it', async () => {
    const down = recordingEnvironment({
      retriever: retriever(async () => {
        throw new SpindleError('bus_unavailable', 'NATS is closed');
      }),
    });
    await expect(executeRun(start(), down.env)).rejects.toMatchObject({ code: 'bus_unavailable' });
  });

  it('refuses at save a topK out of 1..50 and a filter that is not scalar values', () => {
    const node = (extra: object) => ({ kind: 'graph', nodes: [{ id: 's', type: 'retrieve', knowledgeBase: 'kb', query: 'q', ...extra }] });
    expect(() => validateDefinition(node({ topK: 51 }))).toThrow(/topK/);
    expect(() => validateDefinition(node({ filter: { a: { b: 1 } } }))).toThrow(/filter/);
    expect(() => validateDefinition(node({ knowledgeBase: 'Not A Name' }))).toThrow(/knowledgeBase/);
  });
});
