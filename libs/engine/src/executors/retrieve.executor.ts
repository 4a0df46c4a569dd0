import { isInfrastructureFault, isSpindleError, SpindleError, type MetadataFilter, type RetrievalResult } from '@spindle/contracts';
import type { RetrieveNode } from '../definition/workflow-definition.schema';
import { renderTemplate } from '../interpreter/render-template';
import type { RetrievalAnswer } from '../ports';
import { placed, type NodeContext, type NodeExecutor } from './node-executor';

interface RetrieveInput {
  knowledgeBase: string;
  query: string;
  topK: number;
  minScore?: number;
  filter?: MetadataFilter;
}

/**
 * Searches a knowledge base: the answer is recorded as `retrieval.completed` (a child span of the
 * node) before it reaches state, so a trace shows what could reach the prompt and a resumed node
 * takes its chunks from the log instead of searching again.
 */
export const retrieveExecutor: NodeExecutor<'retrieve', RetrieveInput> = {
  failureCode: 'retrieval_failed',
  prepare: (node, state) => ({
    knowledgeBase: node.knowledgeBase,
    query: renderTemplate(node.query, state),
    topK: node.topK,
    ...(node.minScore !== undefined ? { minScore: node.minScore } : {}),
    ...(node.filter ? { filter: renderFilter(node.filter, state) } : {}),
  }),
  async execute(node: RetrieveNode, input, ctx) {
    const answer = ctx.replay?.nextRetrieval() ?? (await retrieve(input, ctx));
    const result: RetrievalResult = { query: input.query, knowledgeBase: input.knowledgeBase, chunks: answer.chunks };
    return { delta: { [node.output_key]: result } };
  },
};

async function retrieve(input: RetrieveInput, ctx: NodeContext): Promise<RetrievalAnswer> {
  const { env } = ctx;
  if (!env.retriever) throw new SpindleError('retrieval_failed', 'this runner has no retriever');
  const started = env.clock.now().getTime();
  let answer: RetrievalAnswer;
  try {
    answer = await env.retriever.retrieve({ ...input, signal: ctx.signal });
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason ?? error;
    if (isInfrastructureFault(error) || (isSpindleError(error) && error.code === 'knowledge_base_not_found')) throw error;
    // Whatever else went wrong is the retriever's failure, never a provider's.
    throw isSpindleError(error) && error.code === 'retrieval_failed'
      ? error
      : new SpindleError('retrieval_failed', `retrieval from "${input.knowledgeBase}" failed`, { cause: error });
  }
  const chunks = answer.chunks.slice(0, input.topK);
  await env.log.append({
    type: 'retrieval.completed',
    nodeId: ctx.nodeId,
    spanId: env.ids.spanId(),
    parentSpanId: ctx.spanId,
    path: ctx.path,
    ...placed(ctx),
    data: {
      retriever: answer.retriever,
      knowledgeBase: input.knowledgeBase,
      ...(answer.version !== undefined ? { version: answer.version } : {}),
      query: input.query,
      topK: input.topK,
      ...(input.minScore !== undefined ? { minScore: input.minScore } : {}),
      chunkCount: chunks.length,
      ...(chunks.length ? { topScore: chunks[0].score } : {}),
      chunks,
      durationMs: env.clock.now().getTime() - started,
    },
  });
  return { ...answer, chunks };
}

function renderFilter(filter: MetadataFilter, state: Readonly<Record<string, unknown>>): MetadataFilter {
  const out: MetadataFilter = Object.create(null) as MetadataFilter;
  for (const [key, value] of Object.entries(filter)) out[key] = typeof value === 'string' ? renderTemplate(value, state) : value;
  return out;
}
