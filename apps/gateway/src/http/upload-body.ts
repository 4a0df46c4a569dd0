import type { Readable } from 'node:stream';
import { SpindleError } from '@spindle/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { routeKey } from '../identity/route-access';
import { isJsonMediaType } from './origin-policy';

/**
 * The routes whose body may be raw bytes, not JSON, and when: a file upload always; a document
 * either as JSON (`{ source, text }`) or as the document itself (text, Markdown, PDF).
 */
const RAW_BODY_ROUTES: ReadonlyMap<string, (claimedType: string | undefined) => boolean> = new Map([
  ['POST /v1/files', () => true],
  ['POST /v1/knowledge-bases/:name/documents', (claimedType: string | undefined) => !isJsonMediaType(claimedType)],
]);
/** What an upload's Content-Type is rewritten to, so only the pass-through parser below reads it. */
const UPLOAD_MEDIA_TYPE = 'application/x-spindle-upload';
const claimedTypes = new WeakMap<FastifyRequest, string | undefined>();

/** Whether the request's body is raw bytes for its handler to read (`readUpload`), not JSON. */
export const isUploadRoute = (request: FastifyRequest): boolean => {
  const rule = RAW_BODY_ROUTES.get(routeKey(request.method, request.routeOptions.url ?? ''));
  return rule !== undefined && rule(claimedTypes.has(request) ? claimedTypes.get(request) : request.headers['content-type']);
};

/**
 * Hands an upload's body to its handler unread, as a stream: whatever the client says it is, the
 * handler reads it within the file limit and decides its type from the bytes. Every other route
 * keeps its JSON parser (the upload's claimed type is kept aside and replaced by a private one, so
 * no other parser ever sees it). After authentication: nothing of an unauthenticated upload is read.
 */
export function installUploadBodies(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request) => {
    if (!isUploadRoute(request)) return;
    claimedTypes.set(request, request.headers['content-type']);
    request.headers['content-type'] = UPLOAD_MEDIA_TYPE;
  });
  fastify.addContentTypeParser(UPLOAD_MEDIA_TYPE, (request, payload, done) => {
    if (!isUploadRoute(request))
      return done(new SpindleError('unsupported_media_type', 'requests must be sent as application/json'), undefined);
    done(null, payload);
  });
}

/** The Content-Type the client sent with its upload (what it claims the file is). */
export function claimedTypeOf(request: FastifyRequest): string | undefined {
  return claimedTypes.get(request);
}

/**
 * The upload's bytes, read until the end or until they pass `maxBytes` (then `413` at once: the
 * rest is left to the unread-body drain). At most `maxBytes` are ever held.
 */
export async function readUpload(request: FastifyRequest, maxBytes: number, tooLarge: () => SpindleError): Promise<Uint8Array> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const body = request.body as Readable | undefined;
  if (!body || typeof body.on !== 'function') return new Uint8Array();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (e) {
    if (e instanceof SpindleError) throw e;
    throw new SpindleError('validation_failed', 'the upload was cut short', { issues: [{ field: '(body)', message: 'incomplete' }] });
  }
  return Buffer.concat(chunks, size);
}
