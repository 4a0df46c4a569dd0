import { egressRefusalIn } from '@spindle/egress';

/** What one attempt got: a status (and the start of the body), or why there was none. */
export interface WebhookAnswer {
  statusCode: number | null;
  error: string | null;
  response: string | null;
}

export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

const RESPONSE_EXCERPT_BYTES = 2_048;

/**
 * POSTs once through the egress guard's `fetch`, which refuses an internal target at connect (a
 * name that resolves to one, an IP literal): such an attempt fails with `egress_refused: …`.
 * Redirects are answers, not followed: a 3xx is not a 2xx and is tried again later.
 */
export async function postWebhook(fetch: typeof globalThis.fetch, post: WebhookPost): Promise<WebhookAnswer> {
  let res: Response;
  try {
    res = await fetch(post.url, {
      method: 'POST',
      redirect: 'manual',
      headers: post.headers,
      body: post.body,
      signal: AbortSignal.timeout(post.timeoutMs),
    });
  } catch (e) {
    return { statusCode: null, error: failure(e, post.timeoutMs), response: null };
  }
  try {
    return { statusCode: res.status, error: null, response: await excerpt(res) };
  } catch (e) {
    return { statusCode: res.status, error: failure(e, post.timeoutMs), response: null };
  }
}

function failure(e: unknown, timeoutMs: number): string {
  const refused = egressRefusalIn(e);
  if (refused) return `${refused.code}: ${refused.message}`;
  if ((e as { name?: string }).name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = (e as { cause?: { message?: string } }).cause;
  return cause?.message ?? (e as Error).message ?? String(e);
}

/** The first bytes of the answer; the rest is not read. */
async function excerpt(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < RESPONSE_EXCERPT_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
}
