import { SpindleError } from '@spindle/contracts';
import { inflateSync } from 'node:zlib';

/**
 * The text of a PDF's content streams: the strings shown by `Tj`, `TJ`, `'` and `"`, with a line
 * break at text-line moves and block ends. Flate streams are inflated with a cap (a small file
 * cannot expand into gigabytes). This reads PDFs whose fonts use standard encodings (what
 * writers of text PDFs produce); glyphs behind custom CMaps come out as their raw bytes, and a
 * scanned PDF (images only) has no text: both are refused as `invalid_document` when nothing
 * readable is left.
 */
export function extractPdfText(bytes: Uint8Array, maxInflatedBytes: number): string {
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (raw.subarray(0, 1024).indexOf('%PDF-') < 0) throw new SpindleError('invalid_document', 'the document is not a PDF (no %PDF- header)');
  const pdf = raw.toString('latin1');
  const texts: string[] = [];
  let budget = maxInflatedBytes;
  const streamRe = /stream\r?\n/g;
  for (let m = streamRe.exec(pdf); m; m = streamRe.exec(pdf)) {
    const dictStart = pdf.lastIndexOf('<<', m.index);
    const dict = dictStart >= 0 ? pdf.slice(dictStart, m.index) : '';
    const start = m.index + m[0].length;
    const end = pdf.indexOf('endstream', start);
    if (end < 0) break;
    streamRe.lastIndex = end;
    if (/\/Subtype\s*\/Image|\/Type\s*\/XRef|\/Type\s*\/ObjStm/.test(dict)) continue;
    let content = raw.subarray(start, end);
    if (/\/Filter\s*\/FlateDecode|\/Filter\s*\[\s*\/FlateDecode\s*\]/.test(dict)) {
      try {
        content = inflateSync(content, { maxOutputLength: Math.max(1, budget) });
      } catch {
        continue;
      }
    } else if (/\/Filter/.test(dict)) continue;
    budget -= content.length;
    if (budget <= 0) throw new SpindleError('invalid_document', 'the PDF expands beyond the document size limit');
    const text = contentText(content.toString('latin1'));
    if (text.trim()) texts.push(text);
  }
  const text = texts
    .join('\n')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
  if (!/[\p{L}\p{N}]/u.test(text)) throw new SpindleError('invalid_document', 'the PDF has no extractable text (scanned, or not a PDF)');
  return text;
}

const TOKEN = /\((?:\\[\s\S]|[^\\)])*\)|<[0-9A-Fa-f\s]*>|\[|\]|[A-Za-z'"*]+|-?\d*\.?\d+|\/[^\s/[\]()<>]+|\s+|[\s\S]/g;

/** Walks a content stream's operators, keeping shown strings. */
function contentText(content: string): string {
  let out = '';
  let operands: string[] = [];
  let inArray = false;
  let arrayStrings: string[] = [];
  for (const m of content.matchAll(TOKEN)) {
    const t = m[0];
    if (t.startsWith('(') || (t.startsWith('<') && t !== '<<')) {
      const s = t.startsWith('(') ? literal(t.slice(1, -1)) : hex(t.slice(1, -1));
      if (inArray) arrayStrings.push(s);
      else operands.push(s);
    } else if (t === '[') {
      inArray = true;
      arrayStrings = [];
    } else if (t === ']') {
      inArray = false;
      operands.push(arrayStrings.join(''));
    } else if (/^-?\d*\.?\d+$/.test(t)) {
      // Large negative kerning in a TJ array is a word gap.
      if (inArray && Number(t) < -200) arrayStrings.push(' ');
    } else if (/^[A-Za-z'"*]+$/.test(t)) {
      if (t === 'Tj' || t === 'TJ') out += operands.join('');
      else if (t === "'" || t === '"') out += '\n' + (operands.at(-1) ?? '');
      else if (t === 'T*' || t === 'Td' || t === 'TD' || t === 'ET') out += '\n';
      operands = [];
    }
  }
  return out;
}

function literal(s: string): string {
  return s.replace(/\\(\d{1,3}|[\s\S])/g, (_, e: string) => {
    if (/^\d/.test(e)) return String.fromCharCode(parseInt(e, 8) & 0xff);
    return ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '\n': '' } as Record<string, string>)[e] ?? e;
  });
}

function hex(s: string): string {
  const digits = s.replace(/\s+/g, '');
  const padded = digits.length % 2 ? digits + '0' : digits;
  return Buffer.from(padded, 'hex').toString('latin1');
}
