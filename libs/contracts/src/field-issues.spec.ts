import { z } from 'zod';
import { ajvFieldIssues, describeIssues, fieldPath, zodFieldIssues } from './field-issues';

describe('fieldPath', () => {
  it('joins names with dots and writes array indexes in brackets', () => {
    expect(fieldPath(['nodes', 2, 'prompt'])).toBe('nodes[2].prompt');
    expect(fieldPath(['items', 0, 1, 'id'], 'parameters')).toBe('parameters.items[0][1].id');
    expect(fieldPath([0, 'answer'])).toBe('[0].answer');
  });

  it('is the root alone, or empty, for the whole value', () => {
    expect(fieldPath([], 'query')).toBe('query');
    expect(fieldPath([])).toBe('');
  });
});

describe('zodFieldIssues', () => {
  const body = z.strictObject({
    nodes: z.array(z.object({ prompt: z.string() })),
    tags: z.record(z.string().regex(/^[a-z]+$/), z.string()),
  });

  it('names each field in the documented format, and unknown keys and bad record keys by what is wrong', () => {
    const parsed = body.safeParse({ nodes: [{ prompt: 'a' }, { prompt: 'b' }, { prompt: 3 }], tags: { Bad: 'x' }, extra: 1 });
    const issues = zodFieldIssues(parsed.error?.issues ?? [], { root: 'query', whole: '(body)' });
    expect(issues).toEqual([
      { field: 'query.nodes[2].prompt', message: expect.stringMatching(/expected string/) },
      { field: 'query.tags.Bad', message: expect.stringMatching(/pattern|Invalid string/) },
      { field: 'query', message: 'unknown field(s): extra' },
    ]);
  });

  it('names the whole value by its label when the path is empty', () => {
    expect(zodFieldIssues(z.string().safeParse(1).error?.issues ?? [], { whole: '(body)' })).toEqual([
      { field: '(body)', message: expect.any(String) },
    ]);
  });
});

describe('ajvFieldIssues', () => {
  it('turns a JSON pointer into the same format, naming a missing or extra property as the field', () => {
    const errors = [
      { instancePath: '/items/0/id', keyword: 'type', message: 'must be string', params: {} },
      { instancePath: '/items/1', keyword: 'required', message: "must have required property 'id'", params: { missingProperty: 'id' } },
      { instancePath: '/a~1b~0c', keyword: 'additionalProperties', params: { additionalProperty: 'x' } },
      { instancePath: '', keyword: 'type', message: 'must be object', params: {} },
    ];
    expect(ajvFieldIssues(errors, { root: 'parameters', whole: '(value)' }).map((i) => i.field)).toEqual([
      'parameters.items[0].id',
      'parameters.items[1].id',
      'parameters.a/b~c.x',
      'parameters',
    ]);
    expect(ajvFieldIssues(errors, { whole: '(value)' }).map((i) => i.field)[3]).toBe('(value)');
    expect(ajvFieldIssues(errors, { whole: '(value)' })[2].message).toBe('additionalProperties');
  });
});

describe('describeIssues', () => {
  it('lists every issue as field: message', () => {
    expect(
      describeIssues([
        { field: 'a[0]', message: 'bad' },
        { field: 'b', message: 'worse' },
      ]),
    ).toBe('a[0]: bad; b: worse');
  });
});
