import { CLEAR_BELOW, frameHeight, redrawFrame } from './terminal-frame';

describe('redrawFrame', () => {
  it('draws the first frame where the cursor is', () => {
    expect(redrawFrame(0, ['a', 'b'], { columns: 80, rows: 24 })).toBe(`\r${CLEAR_BELOW}a\nb\n`);
  });

  it('moves up over the previous frame and clears it before drawing the next', () => {
    expect(redrawFrame(2, ['a', 'b', 'c'], { columns: 80, rows: 24 })).toBe(`\x1b[2A\r${CLEAR_BELOW}a\nb\nc\n`);
  });

  it('cuts lines to the width so none wraps, and keeps the header and the newest rows of a tall frame', () => {
    const lines = ['header', ...Array.from({ length: 30 }, (_, i) => `row ${i} ${'x'.repeat(40)}`)];
    const drawn = redrawFrame(0, lines, { columns: 20, rows: 10 }).split('\n').slice(0, -1);
    expect(drawn).toHaveLength(9);
    expect(frameHeight(lines, 10)).toBe(9);
    expect(drawn[0]).toBe(`\r${CLEAR_BELOW}header`);
    expect(drawn[1]).toBe('  … 23 more above');
    expect(drawn[8]).toBe('row 29 xxxxxxxxxxx…');
    expect(drawn.slice(1).every((l) => [...l].length <= 19)).toBe(true);
  });
});
