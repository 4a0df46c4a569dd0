import { refuseNulCharacters } from './storable-json';

describe('refuseNulCharacters', () => {
  it('refuses U+0000 in any string or key, however deep', () => {
    expect(() => refuseNulCharacters({ a: [{ b: 'x\u0000y' }] })).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    expect(() => refuseNulCharacters({ ['k\u0000']: 1 })).toThrow(/U\+0000/);
    expect(() => refuseNulCharacters(['\\\u0000'])).toThrow(/U\+0000/);
  });

  it('accepts the text of the escape itself and everything else', () => {
    expect(() => refuseNulCharacters({ a: '\\u0000', b: '\\\\u0000', c: '\u0001', d: null })).not.toThrow();
    expect(() => refuseNulCharacters(undefined)).not.toThrow();
  });

  it('refuses half of a surrogate pair, which jsonb cannot store, and takes whole pairs and the escape as text', () => {
    expect(() => refuseNulCharacters({ a: 'x\ud800' })).toThrow(/surrogate/);
    expect(() => refuseNulCharacters({ ['\udfff']: 1 })).toThrow(/surrogate/);
    expect(() => refuseNulCharacters({ a: '😀', b: '\\ud800' })).not.toThrow();
  });
});
