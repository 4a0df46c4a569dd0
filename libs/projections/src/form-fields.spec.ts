import { formFieldsOf } from './form-fields';

describe('formFieldsOf', () => {
  it('reads an object of primitive fields, with what is required, titles and string choices', () => {
    expect(
      formFieldsOf({
        type: 'object',
        properties: {
          amount: { type: 'number', title: 'Amount', minimum: 0 },
          currency: { type: 'string', enum: ['EUR', 'USD'] },
          urgent: { type: 'boolean', description: 'Skip the queue' },
          count: { type: 'integer' },
        },
        required: ['amount'],
      }),
    ).toEqual([
      { name: 'amount', type: 'number', required: true, title: 'Amount' },
      { name: 'currency', type: 'string', required: false, options: ['EUR', 'USD'] },
      { name: 'urgent', type: 'boolean', required: false, description: 'Skip the queue' },
      { name: 'count', type: 'integer', required: false },
    ]);
  });

  it('leaves any schema a form cannot ask to the JSON editor', () => {
    expect(formFieldsOf({ type: 'object', properties: { items: { type: 'array' } } })).toBeUndefined();
    expect(formFieldsOf({ type: 'object', properties: { nested: { type: 'object', properties: {} } } })).toBeUndefined();
    expect(formFieldsOf({ type: 'object', properties: { a: { type: 'string' } }, required: 'a' })).toBeUndefined();
    expect(formFieldsOf({ type: 'array' })).toBeUndefined();
    expect(formFieldsOf(undefined)).toBeUndefined();
  });
});
