/** Columns of plain text, padded to the widest cell; `right` columns (numbers) align on the right. */
export interface Column {
  header: string;
  align?: 'left' | 'right';
}

/** A table as lines: the header first unless `headers: false`; cells are single-line text. */
export function formatTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  options: { headers?: boolean } = {},
): string[] {
  const withHeaders = options.headers ?? true;
  const all = withHeaders ? [columns.map((c) => c.header), ...rows] : [...rows];
  const widths = columns.map((_, i) => Math.max(0, ...all.map((row) => visibleLength(row[i] ?? ''))));
  return all.map((row) =>
    columns
      .map((column, i) => pad(row[i] ?? '', widths[i], column.align ?? 'left', i === columns.length - 1))
      .join('  ')
      .trimEnd(),
  );
}

function pad(cell: string, width: number, align: 'left' | 'right', last: boolean): string {
  const fill = ' '.repeat(Math.max(0, width - visibleLength(cell)));
  if (align === 'right') return fill + cell;
  return last ? cell : cell + fill;
}

/** Characters as a terminal shows them: ANSI colour sequences take no room. */
export function visibleLength(text: string): number {
  return [...stripAnsi(text)].length;
}

// eslint-disable-next-line no-control-regex
const ANSI_SEQUENCE = /\x1b\[[0-9;?]*[A-Za-z]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI_SEQUENCE, '');
}

/** Cuts a line to `width` visible characters, ending with `…` when something was cut. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? '…'.slice(0, width) : chars.slice(0, width - 1).join('') + '…';
}
