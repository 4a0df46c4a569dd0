import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

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
 * build directory are served; the API stays under `/v1`.
 */
export function installConsole(fastify: FastifyInstance, dir: string): void {
  const root = normalize(dir + sep);
  const send = async (reply: FastifyReply, file: string, cache: string) => {
    const path = normalize(join(root, file));
    if (!path.startsWith(root)) return reply.status(404).send();
    try {
      const body = await readFile(path);
      return reply.header('content-type', TYPES[extname(path)] ?? 'application/octet-stream').header('cache-control', cache).send(body);
    } catch {
      if (file === 'index.html') {
        return reply.status(404).type('application/problem+json').send({ type: 'about:blank', title: 'console not built', status: 404, code: 'not_found', detail: `no console build in ${dir}; run npm run build` });
      }
      return reply.status(404).send();
    }
  };
  fastify.get('/', (_req, reply) => send(reply, 'index.html', 'no-cache'));
  fastify.get('/assets/*', (req, reply) => send(reply, join('assets', (req.params as { '*': string })['*']), 'public, max-age=31536000, immutable'));
}
