import { SpindleError } from '@spindle/contracts';
import type { FastifyInstance } from 'fastify';

/** The one route that takes raw bodies: a document upload. */
export const DOCUMENT_UPLOAD_PATH = /^\/v1\/knowledge-bases\/[^/]+\/documents(\?|$)/;
export const RAW_DOCUMENT_TYPES = ['text/plain', 'text/markdown', 'application/pdf'] as const;

export function isRawDocumentUpload(method: string, url: string, contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return method === 'POST' && DOCUMENT_UPLOAD_PATH.test(url) && (RAW_DOCUMENT_TYPES as readonly string[]).includes(type);
}

/**
 * Text, Markdown and PDF bodies, read as bytes up to `SPINDLE_MAX_DOCUMENT_BYTES` (beyond: 413),
 * for document uploads only; on any other route these media types stay refused (415).
 */
export function installDocumentBodyParser(fastify: FastifyInstance, maxDocumentBytes: number): void {
  fastify.addContentTypeParser([...RAW_DOCUMENT_TYPES], { parseAs: 'buffer', bodyLimit: maxDocumentBytes }, (request, body, done) => {
    if (!DOCUMENT_UPLOAD_PATH.test(request.url)) {
      return done(new SpindleError('unsupported_media_type', 'this route takes application/json'), undefined);
    }
    done(null, body);
  });
}
