/**
 * The media types an upload may be, decided from its bytes (never from the header a client sent):
 * binary formats by their magic numbers, text formats only when the bytes are valid UTF-8. A text
 * file's own kind (CSV, Markdown) cannot be told from its bytes, so the claimed type picks among
 * the text types, and JSON is also parsed.
 */
export const SNIFFABLE_MEDIA_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/pdf',
  'text/plain',
  'text/markdown',
  'text/csv',
  'application/json',
] as const;
export type SniffableMediaType = (typeof SNIFFABLE_MEDIA_TYPES)[number];

const TEXT_TYPES: ReadonlySet<string> = new Set(['text/plain', 'text/markdown', 'text/csv', 'application/json']);

export function isSniffableMediaType(value: string): value is SniffableMediaType {
  return (SNIFFABLE_MEDIA_TYPES as readonly string[]).includes(value);
}

export function isImageMediaType(mediaType: string): boolean {
  return mediaType.startsWith('image/');
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** The binary type the bytes' magic number names, if any. */
function binaryTypeOf(bytes: Uint8Array): SniffableMediaType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  if (startsWith(bytes, ascii('%PDF-'))) return 'application/pdf';
  return undefined;
}

/** Valid UTF-8 without NUL or other C0 controls than tab, newline, carriage return and form feed. */
function textOf(bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text) ? undefined : text;
}

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** What a file claims to be by its name's extension (`.png`): only a claim, the gateway decides from the bytes. */
const CLAIMED_BY_EXTENSION: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.json': 'application/json',
};

/** The media type a file of this extension (with its dot, any case) claims; `application/octet-stream` when unknown. */
export function claimedMediaType(extension: string): string {
  const ext = extension.toLowerCase();
  return Object.hasOwn(CLAIMED_BY_EXTENSION, ext) ? CLAIMED_BY_EXTENSION[ext] : 'application/octet-stream';
}

export type SniffOutcome = { readonly ok: true; readonly mediaType: SniffableMediaType } | { readonly ok: false; readonly reason: string };

/**
 * The upload's media type: what its bytes are, if that is allowed and does not contradict the
 * claimed type. A claim of `application/octet-stream` (or none) claims nothing; a text claim
 * picks among the text types; a binary claim must be the binary type the bytes are.
 */
export function sniffMediaType(bytes: Uint8Array, claimed: string | undefined, allowed: ReadonlySet<string>): SniffOutcome {
  const claim = claimed?.split(';')[0]?.trim().toLowerCase() || undefined;
  const anything = claim === undefined || claim === 'application/octet-stream';
  const binary = binaryTypeOf(bytes);
  const decide = (mediaType: SniffableMediaType): SniffOutcome =>
    allowed.has(mediaType)
      ? { ok: true, mediaType }
      : { ok: false, reason: `the bytes are ${mediaType}, which this deployment does not accept (SPINDLE_FILE_MEDIA_TYPES)` };
  if (binary) {
    if (!anything && claim !== binary) return { ok: false, reason: `the bytes are ${binary}, not the ${claim} the request claims` };
    return decide(binary);
  }
  const text = textOf(bytes);
  if (text === undefined) return { ok: false, reason: 'the bytes are of no media type this deployment accepts' };
  if (anything) return decide('text/plain');
  if (!TEXT_TYPES.has(claim)) return { ok: false, reason: `the bytes are text, not the ${claim} the request claims` };
  if (claim === 'application/json' && !isJson(text)) return { ok: false, reason: 'the bytes claim to be JSON but do not parse as JSON' };
  return decide(claim as SniffableMediaType);
}
