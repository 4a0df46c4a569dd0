import { embed, embedMany } from 'ai';
import { createEmbeddingModelResolver } from './embedding-resolver';
import { OfflineHashEmbeddingModel } from './offline-hash-embedding.model';

const cosine = (a: number[], b: number[]) => a.reduce((n, x, i) => n + x * b[i]!, 0);

describe('offline:hash-<dims> embeddings', () => {
  const model = new OfflineHashEmbeddingModel(128);

  it('gives the same unit vector for the same text, through the AI SDK, closer for texts that share words', async () => {
    const { embeddings } = await embedMany({
      model,
      values: ['Refunds take five days', 'refunds TAKE five days!', 'Parcels ship from Rotterdam'],
    });
    const [a, b, c] = embeddings as [number[], number[], number[]];
    expect(a).toHaveLength(128);
    expect(cosine(a, a)).toBeCloseTo(1, 10);
    expect(b).toEqual(a);
    const { embedding } = await embed({ model, value: 'refunds take a while' });
    expect(cosine(a, embedding)).toBeGreaterThan(cosine(c, embedding));
  });

  it('embeds a text without words as the zero vector, not NaN', async () => {
    const { embedding } = await embed({ model, value: '?!' });
    expect(embedding.every((x) => x === 0)).toBe(true);
  });

  it('is what the resolver builds for offline:hash-N; other refs are unknown_model until configured', () => {
    const resolve = createEmbeddingModelResolver({});
    expect(resolve('offline:hash-64')).toMatchObject({ provider: 'offline', modelId: 'hash-64', dimensions: 64 });
    for (const ref of ['offline:hash-4', 'offline:echo', 'openai:text-embedding-3-small', 'compatible:nomic', 'anthropic:claude'])
      expect(() => resolve(ref)).toThrow(expect.objectContaining({ code: 'unknown_model' }));
    const configured = createEmbeddingModelResolver({ openai: { apiKey: 'k' } })('openai:text-embedding-3-small');
    expect(configured).toMatchObject({ modelId: 'text-embedding-3-small' });
  });
});
