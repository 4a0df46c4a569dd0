import type { FormField } from '@spindle/projections';
import { describe, expect, it } from 'vitest';
import { fieldText, withFieldValue } from './json-form';

const amount: FormField = { name: 'amount', type: 'number', required: true };
const note: FormField = { name: 'note', type: 'string', required: false };
const urgent: FormField = { name: 'urgent', type: 'boolean', required: false };

describe('a JSON answer written through its form', () => {
  it('sets each field as its type, and leaves an emptied one out', () => {
    let text = '{}';
    text = withFieldValue(text, amount, '12.5');
    text = withFieldValue(text, note, 'partial refund');
    text = withFieldValue(text, urgent, true);
    expect(JSON.parse(text)).toEqual({ amount: 12.5, note: 'partial refund', urgent: true });
    expect(JSON.parse(withFieldValue(text, note, ''))).toEqual({ amount: 12.5, urgent: true });
  });

  it('keeps what was typed in a number field as text when it is no number, for the schema check to name', () => {
    expect(JSON.parse(withFieldValue('{}', amount, '12a'))).toEqual({ amount: '12a' });
  });

  it('starts from an empty answer when the raw editor holds no JSON object, and shows each field as text', () => {
    expect(JSON.parse(withFieldValue('{"amount": ', amount, '3'))).toEqual({ amount: 3 });
    expect(fieldText('{"amount": 3}', amount)).toBe('3');
    expect(fieldText('not json', amount)).toBe('');
  });
});
