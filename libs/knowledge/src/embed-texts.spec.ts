import { createEmbeddingModelResolver } from '@spindle/llm';
import { FakeOpenAIServer } from '@spindle/testing';
import { embedTexts } from './embed-texts';

describe('embedTexts through a real provider client', () => {
  const fake = new FakeOpenAIServer();
  beforeAll(() => fake.start());
  afterAll(() => fake.stop());

  it('sends the texts to OpenAI /embeddings as the SDK does and answers unit vectors of the base dimension', async () => {
    const model = createEmbeddingModelResolver({ openai: { apiKey: 'sk-test', baseUrl: fake.baseUrl } })('openai:text-embedding-3-small');
    fake.embeddingDimensions = 8;
    const vectors = await embedTexts(model, ['refunds take five days', 'express shipping'], 8);
    const call = fake.calls.at(-1)!;
    expect(call.path).toBe('/v1/embeddings');
    expect(call.body).toMatchObject({
      model: 'text-embedding-3-small',
      input: ['refunds take five days', 'express shipping'],
      encoding_format: 'float',
    });
    expect(call.headers.authorization).toBe('Bearer sk-test');
    expect(vectors).toHaveLength(2);
    for (const v of vectors) expect(v.reduce((n, x) => n + x * x, 0)).toBeCloseTo(1, 10);
  });

  it('refuses vectors of another dimension as embedding_dimension_mismatch, and an unreachable provider as provider_error', async () => {
    const resolve = createEmbeddingModelResolver({ compatible: { baseUrl: fake.baseUrl } });
    fake.embeddingDimensions = 12;
    await expect(embedTexts(resolve('compatible:nomic-embed-text'), ['x'], 8)).rejects.toMatchObject({
      code: 'embedding_dimension_mismatch',
    });
    const down = createEmbeddingModelResolver({ compatible: { baseUrl: 'http://127.0.0.1:9/v1' } })('compatible:nomic-embed-text');
    await expect(embedTexts(down, ['x'], 8)).rejects.toMatchObject({ code: 'provider_error' });
  });
});
