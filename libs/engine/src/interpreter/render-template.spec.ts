import { MAX_TEMPLATE_DEPTH, renderTemplate, renderValue } from './render-template';

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

describe('template bounds', () => {
  const state = { n: 3 };
  const KB100 = 100 * 1024;
  const hostile = {
    'an unclosed dotted path': `{{${'a.'.repeat(KB100 / 2)}`,
    'an unclosed run of spaces': `{{${' '.repeat(KB100)}a`,
    'a path that never closes': `{{ a${'.b1'.repeat(KB100 / 3)} x}}`,
    'openers without names': '{{'.repeat(KB100 / 2),
    'openers with short names': '{{a.'.repeat(KB100 / 4),
  };

  it.each(Object.entries(hostile))('scans a 100 KB template of %s in linear time', (_, template) => {
    // Nothing in these is a placeholder; a super-linear scan would not finish.
    expect(renderTemplate(template, state)).toBe(template);
    expect(renderValue(template, state)).toBe(template);
  });

  it('refuses rendering a large value many times instead of allocating it', () => {
    const big = { doc: 'x'.repeat(1024 * 1024) };
    expect(renderTemplate('{{doc}}', big)).toHaveLength(1024 * 1024);
    expect(() => renderTemplate('{{doc}}'.repeat(1_000), big)).toThrow(
      expect.objectContaining({ code: 'template_error', message: expect.stringMatching(/MAX_RENDERED_SIZE/) }),
    );
    const references = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, '{{doc}}']));
    expect(() => renderValue(references, big)).toThrow(expect.objectContaining({ code: 'template_error' }));
    expect(() => renderTemplate('{{list}}'.repeat(1_000), { list: Array.from({ length: 100_000 }, (_, i) => i) })).toThrow(
      /MAX_RENDERED_SIZE/,
    );
  });

  it('refuses a value template nested deeper than MAX_TEMPLATE_DEPTH', () => {
    let value: unknown = '{{n}}';
    for (let i = 0; i < MAX_TEMPLATE_DEPTH + 1; i++) value = [value];
    expect(() => renderValue(value, state)).toThrow(
      expect.objectContaining({ code: 'template_error', message: expect.stringMatching(/MAX_TEMPLATE_DEPTH/) }),
    );
    let shallow: unknown = '{{n}}';
    for (let i = 0; i < MAX_TEMPLATE_DEPTH - 1; i++) shallow = { v: shallow };
    expect(JSON.stringify(renderValue(shallow, state))).toContain('3');
  });

  it('renders a retrieve node’s result as its chunks, numbered with their sources, not as JSON', () => {
    const context = {
      query: 'refunds?',
      knowledgeBase: 'faq',
      chunks: [
        { id: 'd_0', source: 'refunds.md', score: 0.9, tokens: 6, text: 'Refunds take five days.' },
        { id: 'd_1', source: 'gifts.md', score: 0.5, tokens: 5, text: 'Gift cards become credit.' },
      ],
    };
    expect(renderTemplate('Answer from:\n{{context}}', { context })).toBe(
      'Answer from:\n[1] (refunds.md) Refunds take five days.\n\n[2] (gifts.md) Gift cards become credit.',
    );
    expect(renderTemplate('{{context.chunks.0.text}}', { context })).toBe('Refunds take five days.');
  });
});
