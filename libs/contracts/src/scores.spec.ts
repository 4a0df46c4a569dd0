import { runsListQuerySchema } from './http-api/request.schemas';
import { parseScoreFilter, scoreFilterSchema } from './run-search';
import { newScoreBodySchema, sameScoreBody, scoreDataTypeOf, scoreNumberOf } from './scores';

describe('scores', () => {
  it('tells a number, a boolean and a category apart by the value’s JSON type', () => {
    expect([1, true, 'good'].map((v) => scoreDataTypeOf(v))).toEqual(['numeric', 'boolean', 'categorical']);
    expect([0.5, true, false, 'good'].map((v) => scoreNumberOf(v))).toEqual([0.5, 1, 0, null]);
  });

  it('refuses a name, a value or a body it cannot keep as given', () => {
    const refused = [
      { name: 'Helpfulness', value: 1 },
      { name: 'a'.repeat(65), value: 1 },
      { name: 'ok', value: Number.POSITIVE_INFINITY },
      { name: 'ok', value: 1e13 },
      { name: 'ok', value: '' },
      { name: 'ok', value: 'bad\u0000label' },
      { name: 'ok', value: { nested: true } },
      { name: 'ok', value: 1, extra: 'field' },
      { name: 'ok', value: 1, comment: 'x'.repeat(2001) },
    ];
    for (const body of refused) expect(newScoreBodySchema.safeParse(body).success).toBe(false);
    expect(newScoreBodySchema.parse({ name: 'exact_match', value: false, comment: 'close', spanId: 'model:3' })).toEqual({
      name: 'exact_match',
      value: false,
      comment: 'close',
      spanId: 'model:3',
    });
  });

  it('takes a repeat as the same score only when name, value, comment and span agree', () => {
    const stored = { name: 'quality', value: 1, comment: null, spanId: null };
    expect(sameScoreBody(stored, { name: 'quality', value: 1 })).toBe(true);
    expect(sameScoreBody(stored, { name: 'quality', value: true })).toBe(false);
    expect(sameScoreBody(stored, { name: 'quality', value: 1, comment: 'why' })).toBe(false);
    expect(sameScoreBody(stored, { name: 'quality', value: 1, spanId: 'node:a' })).toBe(false);
  });
});

describe('the runs list’s score filter', () => {
  it('reads a name, a comparison with a number, a boolean or a category', () => {
    expect(parseScoreFilter('helpfulness')).toEqual({ name: 'helpfulness', op: 'exists' });
    expect(parseScoreFilter('helpfulness>=0.8')).toEqual({ name: 'helpfulness', op: '>=', number: 0.8 });
    expect(parseScoreFilter('latency.ms<250')).toEqual({ name: 'latency.ms', op: '<', number: 250 });
    expect(parseScoreFilter('correct=true')).toEqual({ name: 'correct', op: '=', boolean: true });
    expect(parseScoreFilter('tone=very friendly')).toEqual({ name: 'tone', op: '=', category: 'very friendly' });
  });

  it('refuses an order against a word, a bad name and a control character', () => {
    for (const text of ['tone>friendly', 'Tone=ok', '1st', 'tone=', 'tone=a\u0000b', 'helpfulness>= '])
      expect(scoreFilterSchema.safeParse(text).success).toBe(false);
  });

  it('sorts by a score only when the filter names one', () => {
    expect(runsListQuerySchema.safeParse({ sort: 'score' }).success).toBe(false);
    expect(runsListQuerySchema.parse({ sort: 'score', score: 'helpfulness' })).toMatchObject({ sort: 'score', score: 'helpfulness' });
  });
});
