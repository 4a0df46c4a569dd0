import { versionChanges } from './version-change';

describe('versionChanges', () => {
  const current = { embedding_model: 'offline:hash-256', dimensions: 256 };
  const chunking = { size: 400, overlap: 40 };
  const save = { embeddingModel: 'offline:hash-256', dimensions: 256, chunking };

  it('keeps the version when only the description could differ', () => {
    expect(versionChanges(chunking, current, save)).toBe(false);
  });

  it('opens a version for another model, dimension, chunk size or overlap', () => {
    expect(versionChanges(chunking, current, { ...save, embeddingModel: 'openai:text-embedding-3-small' })).toBe(true);
    expect(versionChanges(chunking, current, { ...save, dimensions: 128 })).toBe(true);
    expect(versionChanges(chunking, current, { ...save, chunking: { size: 200, overlap: 40 } })).toBe(true);
    expect(versionChanges(chunking, current, { ...save, chunking: { size: 400, overlap: 0 } })).toBe(true);
  });
});
