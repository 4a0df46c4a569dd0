/**
 * A table as the README shows it (what `spindle trace` prints): a header line, then one line per
 * row, columns separated by two or more spaces. Every cell must be exactly the real one, but in a
 * volatile column (a duration: `ms`, `wall ms`, `working ms`) any whole number will do.
 */
export const isVolatileColumn = (column: string): boolean => column === 'ms' || column.endsWith(' ms');

export function tableMismatches(shown: string, actual: string): string[] {
  const [shownHeader, ...shownRows] = tableRows(shown);
  const [actualHeader, ...actualRows] = tableRows(actual);
  if (!shownHeader) return ['the README shows an empty table'];
  if (!actualHeader || shownHeader.join('|') !== actualHeader.join('|')) {
    return [`header: expected ${shownHeader.join(' | ')}, got ${actualHeader?.join(' | ') ?? 'nothing'}`];
  }
  const out: string[] = [];
  if (shownRows.length !== actualRows.length) out.push(`expected ${shownRows.length} rows, got ${actualRows.length}`);
  shownRows.forEach((row, r) => {
    const real = actualRows[r];
    if (!real) return;
    if (real.length !== row.length) return void out.push(`row ${r + 1}: expected ${row.join(' | ')}, got ${real.join(' | ')}`);
    row.forEach((cell, c) => {
      const column = shownHeader[c];
      const fits = isVolatileColumn(column) ? /^\d+$/.test(real[c]) : real[c] === cell;
      if (!fits) out.push(`row ${r + 1}, ${column}: expected ${isVolatileColumn(column) ? 'a whole number' : cell}, got ${real[c]}`);
    });
  });
  return out;
}

function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => line.split(/\s{2,}/));
}
