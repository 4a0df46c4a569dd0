import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { SpindleError } from '@spindle/contracts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendProblem } from './problem-response';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * Serves the console's static build: `/` is its `index.html` (never cached, so a new build is
 * picked up), `/assets/*` its content-hashed files (cached for good). Only files inside the
 * build directory are served; the API stays under `/v1`. A miss is a `not_found` problem like any other.
 */
export function installConsole(fastify: FastifyInstance, dir: string): void {
  const root = normalize(dir + sep);
  const send = async (reply: FastifyReply, file: string, cache: string) => {
    const path = normalize(join(root, file));
    const missing = () =>
      sendProblem(
        reply,
        new SpindleError(
          'not_found',
          file === 'index.html' ? `no console build in ${dir}; run npm run build` : `no console file ${JSON.stringify(file)}`,
        ),
      );
    if (!path.startsWith(root)) return missing();
    try {
      const body = await readFile(path);
      return reply
        .header('content-type', TYPES[extname(path)] ?? 'application/octet-stream')
        .header('cache-control', cache)
        .send(body);
    } catch {
      return missing();
    }
  };
  fastify.get('/', (_req, reply) => send(reply, 'index.html', 'no-cache'));
  fastify.get('/assets/*', (req, reply) =>
    send(reply, join('assets', (req.params as { '*': string })['*']), 'public, max-age=31536000, immutable'),
  );
}
