import { planCatalogSave } from './catalog-save';

describe('planCatalogSave', () => {
  const spec = { name: 'writer', model: 'm', tools: ['a', 'b'], options: { temperature: 0.2, top: 1 } };

  it('creates version 1 of a name never saved', () => {
    expect(planCatalogSave(undefined, spec)).toEqual({ created: true, version: 1 });
  });

  it('changes nothing when the live entry holds the same value, whatever the key order', () => {
    const stored = { options: { top: 1, temperature: 0.2 }, tools: ['a', 'b'], model: 'm', name: 'writer' };
    expect(planCatalogSave({ version: 4, content: stored, deleted: false }, spec)).toEqual({ created: false, version: 4 });
  });

  it('adds a version after the latest for any other value (array order counts)', () => {
    expect(planCatalogSave({ version: 4, content: { ...spec, tools: ['b', 'a'] }, deleted: false }, spec)).toEqual({
      created: true,
      version: 5,
    });
    expect(planCatalogSave({ version: 4, content: { ...spec, extra: null }, deleted: false }, spec)).toEqual({ created: true, version: 5 });
  });

  it('brings a deleted entry back as a new version even with the same value', () => {
    expect(planCatalogSave({ version: 2, content: spec, deleted: true }, spec)).toEqual({ created: true, version: 3 });
  });
});
