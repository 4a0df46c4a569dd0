import { countTokens } from '@spindle/engine';
import { chunkText } from './chunk-text';

const paragraph = (n: number) =>
  `Paragraph ${n} explains how refunds work for order ${n}. Customers can ask within thirty days. ` +
  `The support team checks the receipt and answers within two working days.`;

describe('chunkText', () => {
  it('keeps a short text whole, counted in real tokens', () => {
    const [chunk, ...rest] = chunkText('Refunds take five days.', { size: 100, overlap: 10 });
    expect(rest).toEqual([]);
    expect(chunk).toEqual({ ord: 0, text: 'Refunds take five days.', tokens: countTokens('Refunds take five days.') });
  });

  it('cuts at paragraphs, never above the size, with the previous chunk repeated as overlap', () => {
    const text = Array.from({ length: 12 }, (_, i) => paragraph(i)).join('\n\n');
    const chunks = chunkText(text, { size: 80, overlap: 10 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(80);
    expect(chunks.map((c) => c.ord)).toEqual(chunks.map((_, i) => i));
    // Every paragraph's first sentence lands whole in some chunk.
    for (let i = 0; i < 12; i++) expect(chunks.some((c) => c.text.includes(`Paragraph ${i} explains`))).toBe(true);
    const secondStart = chunks[1].text.slice(0, 20);
    expect(chunks[0].text).toContain(secondStart.trim().split(' ')[0]);
  });

  it('cuts a text without any separator by tokens', () => {
    const chunks = chunkText('x'.repeat(5_000), { size: 64, overlap: 0 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(64);
    expect(chunks.map((c) => c.text).join('')).toBe('x'.repeat(5_000));
  });

  it('gives nothing for blank text', () => {
    expect(chunkText(' \n\n \t', { size: 64, overlap: 8 })).toEqual([]);
  });
});
