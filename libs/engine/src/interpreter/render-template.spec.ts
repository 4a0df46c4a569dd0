import { renderTemplate, renderValue } from './render-template';

describe('templates', () => {
  const state = { input: { name: 'Ada', tags: ['a', 'b'] }, n: 3 };
  it('interpolates keys and dotted paths', () => {
    expect(renderTemplate('hi {{input.name}}, n={{ n }}, tags={{input.tags}}', state)).toBe('hi Ada, n=3, tags=["a","b"]');
    expect(renderTemplate('first={{input.tags.0}}', state)).toBe('first=a');
  });
  it('keeps the type of a value that is one placeholder alone', () => {
    expect(renderValue({ list: '{{input.tags}}', text: 'x{{n}}' }, state)).toEqual({ list: ['a', 'b'], text: 'x3' });
  });
  it('fails on a missing key instead of rendering nothing', () => {
    expect(() => renderTemplate('{{input.age}}', state)).toThrow(expect.objectContaining({ code: 'template_error' }));
  });
});
