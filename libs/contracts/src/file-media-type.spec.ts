import { SNIFFABLE_MEDIA_TYPES, sniffMediaType } from './file-media-type';

const all = new Set<string>(SNIFFABLE_MEDIA_TYPES);
const bytes = (...parts: Array<string | number[]>) =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...Buffer.from(p, 'latin1')] : p)));
const PNG = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'rest');
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0], 'rest');
const GIF = bytes('GIF89a', [0, 1]);
const WEBP = bytes('RIFF', [1, 2, 3, 4], 'WEBPVP8 ');
const PDF = bytes('%PDF-1.7\n');

describe('sniffMediaType', () => {
  it.each([
    ['png', PNG, 'image/png', 'image/png'],
    ['jpeg', JPEG, 'image/jpeg', 'image/jpeg'],
    ['gif', GIF, 'image/gif', 'image/gif'],
    ['webp', WEBP, 'image/webp', 'image/webp'],
    ['pdf', PDF, 'application/pdf', 'application/pdf'],
    ['png claimed as octet-stream', PNG, 'application/octet-stream', 'image/png'],
    ['png with no claim', PNG, undefined, 'image/png'],
    ['text with no claim', bytes('hello\n'), undefined, 'text/plain'],
    ['utf-8 text claimed with a charset', Uint8Array.from(Buffer.from('héllo ✓')), 'text/plain; charset=utf-8', 'text/plain'],
    ['csv', bytes('a,b\n1,2\n'), 'text/csv', 'text/csv'],
    ['markdown', bytes('# Title\n'), 'TEXT/Markdown', 'text/markdown'],
    ['json', bytes('{"a":[1,2]}'), 'application/json', 'application/json'],
  ])('knows %s', (_name, body, claimed, mediaType) => {
    expect(sniffMediaType(body, claimed, all)).toEqual({ ok: true, mediaType });
  });

  it.each([
    ['a png claimed as jpeg', PNG, 'image/jpeg', /bytes are image\/png, not the image\/jpeg/],
    ['a png claimed as text', PNG, 'text/plain', /bytes are image\/png, not the text\/plain/],
    ['text claimed as png', bytes('not an image'), 'image/png', /bytes are text, not the image\/png/],
    ['JSON that does not parse', bytes('{"a":'), 'application/json', /do not parse as JSON/],
    ['bytes of no type', bytes([0, 1, 2, 3, 0xfe]), undefined, /no media type/],
    ['invalid utf-8', bytes([0x68, 0xc3, 0x28]), 'text/plain', /no media type/],
    ['text with NUL', bytes('a\u0000b'), 'text/plain', /no media type/],
    ['a type nobody sniffs', bytes('<svg/>'), 'image/svg+xml', /bytes are text, not the image\/svg\+xml/],
  ])('refuses %s', (_name, body, claimed, reason) => {
    const outcome = sniffMediaType(body, claimed, all);
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.reason).toMatch(reason);
  });

  it('refuses a type the allow-list leaves out, even when the bytes are it', () => {
    const images = new Set(['image/png']);
    expect(sniffMediaType(PNG, 'image/png', images)).toEqual({ ok: true, mediaType: 'image/png' });
    expect(sniffMediaType(PDF, 'application/pdf', images)).toEqual({ ok: false, reason: expect.stringMatching(/does not accept/) });
    expect(sniffMediaType(bytes('hi'), undefined, images).ok).toBe(false);
  });
});
