'use strict';
// Spindle plugin: lets a model fetch from hosts an operator allowed, and nothing else.
//   SPINDLE_HTTP_ALLOWLIST   comma-separated hosts: "api.example.com", "*.example.com" (any
//                            subdomain), "127.0.0.1:8080" (that port only). Empty = refuse all.
//   SPINDLE_HTTP_MAX_BODY_BYTES  response body bytes kept (default 65536); the rest is dropped.
// Both are read on each call, so an operator can change them without reloading the plugin.
// Requests go through the runner's egress guard (`ctx.fetch`): a host on the allow-list that is,
// or resolves to, an internal address is refused at connect unless SPINDLE_EGRESS_ALLOWED_HOSTS
// names it too (so DNS that changes after the allow-list was written reaches nothing internal).
const { definePlugin, defineTool, PublicError } = require('@spindle/plugin');
const { z } = require('zod');

// Enough for a model to make sense of a response, without cookies or internal headers.
const keptHeaders = [
  'content-type',
  'content-length',
  'content-language',
  'location',
  'date',
  'last-modified',
  'etag',
  'cache-control',
  'retry-after',
];

function allowList() {
  return (process.env.SPINDLE_HTTP_ALLOWLIST ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
}

/** Matches by name; where the name resolves is checked by the runner's egress guard at connect. */
function isAllowed(url, entries) {
  const hostname = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return entries.some((entry) => {
    const [host, entryPort] = entry.startsWith('[') ? [entry.slice(1, entry.indexOf(']')), entry.split(']:')[1]] : entry.split(':');
    if (entryPort !== undefined && entryPort !== port) return false;
    return host.startsWith('*.') ? hostname.endsWith(host.slice(1)) : hostname === host;
  });
}

function maxBodyBytes() {
  const value = Number(process.env.SPINDLE_HTTP_MAX_BODY_BYTES ?? 65_536);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`SPINDLE_HTTP_MAX_BODY_BYTES must be an integer ≥ 0 (got "${process.env.SPINDLE_HTTP_MAX_BODY_BYTES}")`);
  return value;
}

/** Reads at most `limit` bytes and cancels the rest, so a huge response costs no more than that. */
async function readLimited(response, limit) {
  if (!response.body) return { body: '', truncated: false };
  const reader = response.body.getReader();
  const chunks = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > limit) {
      chunks.push(value.subarray(0, limit - size));
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  // A multi-byte character cut at the limit decodes to U+FFFD instead of failing.
  return { body: Buffer.concat(chunks).toString('utf8'), truncated };
}

async function httpRequest({ url, method, headers, body }, { signal, fetch }) {
  let target;
  try {
    target = new URL(url);
  } catch {
    throw new PublicError(`"${url}" is not a valid URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new PublicError(`only http and https URLs are allowed, not ${target.protocol}`);
  const entries = allowList();
  if (!isAllowed(target, entries)) {
    throw new PublicError(
      entries.length === 0
        ? 'no host is allowed: SPINDLE_HTTP_ALLOWLIST is empty'
        : `host "${target.host}" is not in the allow-list (SPINDLE_HTTP_ALLOWLIST)`,
    );
  }
  let response;
  try {
    // Redirects are returned, not followed: following one could leave the allow-list.
    response = await fetch(target, { method, headers, body: method === 'POST' ? body : undefined, redirect: 'manual', signal });
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    // The runner's own error, code `egress_refused`: passed on as it is, so the call fails with that code.
    if (e?.code === 'egress_refused') throw e;
    const code = e?.cause?.code ?? e?.cause?.name ?? 'network error';
    // Only a GET is safe to send again; a POST may have been received before the failure.
    throw new PublicError(`request to ${target.host} failed (${code})`, { retryable: method === 'GET' });
  }
  const kept = {};
  for (const name of keptHeaders) if (response.headers.has(name)) kept[name] = response.headers.get(name);
  const { body: text, truncated } = await readLimited(response, maxBodyBytes());
  return { status: response.status, ok: response.ok, headers: kept, body: text, truncated };
}

module.exports = definePlugin({
  name: 'http-request',
  version: '1.0.0',
  tools: {
    http_request: defineTool({
      description:
        'Sends an HTTP GET or POST to an allowed host and returns { status, ok, headers, body, truncated }. ' +
        'Redirects are returned (see headers.location), not followed. Non-2xx statuses are results, not errors.',
      input: z.object({
        url: z.url().describe('Absolute http(s) URL; its host must be allowed by the operator'),
        method: z.enum(['GET', 'POST']).default('GET'),
        headers: z.record(z.string(), z.string()).optional().describe('Request headers, e.g. { "content-type": "application/json" }'),
        body: z.string().max(100_000).optional().describe('Request body (POST only)'),
      }),
      timeoutMs: 15_000,
      retry: { attempts: 2, backoffMs: 500, retryOn: (e) => e?.data?.retryable === true },
      run: httpRequest,
    }),
  },
});
