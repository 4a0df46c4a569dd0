import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sha256Hex } from './sha256';

const nodeSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** sha256Hex as a browser runs it: js-sha256 without Node, whose `hex` is its pure-JavaScript hash. */
function browserSha256Hex(): (text: string) => string {
  let hash: ((text: string) => string) | undefined;
  jest.isolateModules(() => {
    jest.doMock('js-sha256', () => ({ sha256: jest.requireActual<typeof import('js-sha256')>('js-sha256').sha256.hex }));
    hash = (jest.requireActual('./sha256') as typeof import('./sha256')).sha256Hex;
  });
  jest.dontMock('js-sha256');
  return hash as (text: string) => string;
}

// Every UTF-16 code unit, lone surrogates included, and lengths across the 64-byte block edges.
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
const anyText = fc.oneof(fc.string({ unit: codeUnit, maxLength: 300 }), fc.string({ unit: 'grapheme', minLength: 40, maxLength: 4_000 }));

describe('sha256Hex', () => {
  const inBrowser = browserSha256Hex();

  it('equals node:crypto on any text, in Node and on the path a browser takes', () => {
    fc.assert(
      fc.property(anyText, (text) => sha256Hex(text) === nodeSha256(text) && inBrowser(text) === nodeSha256(text)),
      { numRuns: 3_000 },
    );
  });

  it('agrees at every length around the block and padding edges, and on a lone surrogate', () => {
    for (let length = 0; length <= 200; length++) {
      const text = 'é'.repeat(length);
      expect(inBrowser(text)).toBe(nodeSha256(text));
    }
    expect(inBrowser('a\uD800b')).toBe(nodeSha256('a\uD800b'));
  });

  it('gives the published digests of the empty text and of "abc"', () => {
    expect(inBrowser('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
