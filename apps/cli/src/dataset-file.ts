import { newDatasetItemSchema, zodFieldIssues, describeIssues, type NewDatasetItem } from '@spindle/contracts';
import { UsageError } from './usage-error';

/**
 * The items of a dataset file: JSON Lines (`.jsonl`, `.ndjson`: one `{ input, expected?, metadata? }`
 * per line) or CSV (`.csv`: a header row; the `input` and `expected` columns, every other column
 * metadata; a cell that is JSON is read as JSON, anything else as text). A line that is not an
 * item is a usage error naming the line, and nothing is sent.
 */
export function parseDatasetFile(path: string, text: string): NewDatasetItem[] {
  if (/\.(jsonl|ndjson)$/i.test(path)) return jsonLines(path, text);
  if (/\.csv$/i.test(path)) return csvItems(path, text);
  throw new UsageError(`${path}: a dataset file is .jsonl, .ndjson or .csv`);
}

function jsonLines(path: string, text: string): NewDatasetItem[] {
  const items: NewDatasetItem[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new UsageError(`${path}:${i + 1}: not JSON (${(e as Error).message})`);
    }
    items.push(item(`${path}:${i + 1}`, value));
  });
  return items;
}

function csvItems(path: string, text: string): NewDatasetItem[] {
  const [header, ...rows] = csvRows(path, text).filter((r) => r.some((cell) => cell !== ''));
  if (!header || !header.includes('input')) throw new UsageError(`${path}: the first row names the columns, one of them \`input\``);
  return rows.map((row, i) => {
    const where = `${path}:${i + 2}`;
    if (row.length !== header.length) throw new UsageError(`${where}: ${row.length} cells, the header has ${header.length}`);
    const metadata = Object.fromEntries(
      header.flatMap((name, c) => (name === 'input' || name === 'expected' ? [] : [[name, cell(row[c]!)]])),
    );
    const expectedAt = header.indexOf('expected');
    return item(where, {
      input: cell(row[header.indexOf('input')]!),
      ...(expectedAt >= 0 && row[expectedAt] !== '' ? { expected: cell(row[expectedAt]!) } : {}),
      ...(Object.keys(metadata).length ? { metadata } : {}),
    });
  });
}

/** A cell that is JSON (an object, a list, a number, true/false, a quoted string) as that value; otherwise its text. */
function cell(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function item(where: string, value: unknown): NewDatasetItem {
  const parsed = newDatasetItemSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new UsageError(`${where}: not a dataset item (${describeIssues(zodFieldIssues(parsed.error.issues, { whole: '(line)' }))})`);
}

/** RFC 4180: fields split by commas, rows by CR LF or LF, a quoted field may hold both and `""` for a quote. */
function csvRows(path: string, text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  const endRow = () => {
    endField();
    rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') endField();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else field += ch;
  }
  if (quoted) throw new UsageError(`${path}: a quoted field is not closed`);
  if (field !== '' || row.length > 0) endRow();
  return rows;
}
