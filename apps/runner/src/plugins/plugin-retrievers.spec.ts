import { join } from 'node:path';
import type { SpindleError } from '@spindle/contracts';
import type { RetrieverPort } from '@spindle/engine';
import { loadPlugins } from './plugin-loader';
import { parseRetriever, PluginRetrievers, routedRetriever } from './plugin-retrievers';

const examples = join(__dirname, '../../../../examples/plugins');
const signal = new AbortController().signal;

describe('plugin retrievers', () => {
  it('loads the example FAQ retriever and answers like a knowledge base: sorted, minScore, topK, tokens counted', async () => {
    const { retrievers } = loadPlugins(['faq-retriever.js'], { cwd: examples, builtins: {} });
    expect(retrievers.names()).toEqual(['faq']);
    const answer = await retrievers.retrieve({
      knowledgeBase: 'faq',
      query: 'how long does express shipping take',
      topK: 2,
      minScore: 0.1,
      signal,
    });
    expect(answer.retriever).toBe('plugin:faq');
    expect(answer.chunks.map((c) => c.id)).toEqual(['faq-shipping']);
    expect(answer.chunks[0]).toMatchObject({ source: 'faq', tokens: expect.any(Number) });
    expect(answer.chunks[0].tokens).toBeGreaterThan(5);
  });

  it('routes a name a plugin has to the plugin, every other name to the knowledge service', async () => {
    const { retrievers } = loadPlugins(['faq-retriever.js'], { cwd: examples, builtins: {} });
    const asked: string[] = [];
    const knowledge: RetrieverPort = {
      retrieve: async (r) => {
        asked.push(r.knowledgeBase);
        return { retriever: 'knowledge_base', version: 1, chunks: [] };
      },
    };
    const routed = routedRetriever(retrievers, knowledge);
    expect((await routed.retrieve({ knowledgeBase: 'faq', query: 'returns', topK: 1, signal })).retriever).toBe('plugin:faq');
    expect((await routed.retrieve({ knowledgeBase: 'support', query: 'returns', topK: 1, signal })).retriever).toBe('knowledge_base');
    expect(asked).toEqual(['support']);
  });

  it('refuses a bad entry at load and a bad answer at the call as retrieval_failed', async () => {
    expect(() => parseRetriever('Bad Name', { retrieve: () => [] }, 'x')).toThrow(/knowledge base name/);
    expect(() => parseRetriever('ok', { search: () => [] }, 'x')).toThrow(/retrieve\(request, ctx\)/);
    const bad = new PluginRetrievers(new Map([['odd', { retrieve: () => [{ id: 1 }] }]]), fetch);
    await expect(bad.retrieve({ knowledgeBase: 'odd', query: 'q', topK: 1, signal })).rejects.toEqual(
      expect.objectContaining({ code: 'retrieval_failed' }) as SpindleError,
    );
  });
});
