import { SpindleError } from '@spindle/contracts';
import { extractPdfText } from './pdf-text';

export const DOCUMENT_MEDIA_TYPES = ['text/plain', 'text/markdown', 'application/pdf'] as const;
export type DocumentMediaType = (typeof DOCUMENT_MEDIA_TYPES)[number];

export function isDocumentMediaType(value: string): value is DocumentMediaType {
  return (DOCUMENT_MEDIA_TYPES as readonly string[]).includes(value);
}

/** A document's text: UTF-8 text as is (invalid UTF-8 is refused), a PDF's shown strings. Empty → `invalid_document`. */
export function extractText(bytes: Uint8Array, mediaType: DocumentMediaType, maxBytes: number): string {
  let text: string;
  if (mediaType === 'application/pdf') text = extractPdfText(bytes, maxBytes * 8);
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new SpindleError('invalid_document', 'the document is not valid UTF-8 text');
    }
  }
  if (text.trim().length === 0) throw new SpindleError('invalid_document', 'the document has no text');
  return text;
}
