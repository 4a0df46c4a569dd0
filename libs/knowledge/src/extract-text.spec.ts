import { isSpindleError } from '@spindle/contracts';
import { extractText } from './extract-text';
import { tinyPdf } from './tiny-pdf';

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return isSpindleError(e) ? e.code : 'not a SpindleError';
  }
  return 'no error';
};

describe('extractText', () => {
  it("reads a PDF's shown text, line by line, escapes included", () => {
    const pdf = tinyPdf(['Refunds (within 30 days)', 'are paid to the original card.']);
    expect(extractText(pdf, 'application/pdf', 1_000_000)).toBe('Refunds (within 30 days)\nare paid to the original card.');
  });

  it('refuses what is not a PDF, a PDF without text, invalid UTF-8 and blank text as invalid_document', () => {
    expect(codeOf(() => extractText(Buffer.from('hello, I am not a pdf'), 'application/pdf', 1_000))).toBe('invalid_document');
    expect(codeOf(() => extractText(tinyPdf(['   ']), 'application/pdf', 1_000))).toBe('invalid_document');
    expect(codeOf(() => extractText(Buffer.from([0xff, 0xfe, 0x00]), 'text/plain', 1_000))).toBe('invalid_document');
    expect(codeOf(() => extractText(Buffer.from(' \n '), 'text/markdown', 1_000))).toBe('invalid_document');
  });

  it('keeps UTF-8 text as is', () => {
    expect(extractText(Buffer.from('# Título\n\nÜber'), 'text/markdown', 1_000)).toBe('# Título\n\nÜber');
  });
});
