import { SpindleApiError, SpindleProtocolError, SpindleUnreachableError, type Problem } from './spindle-errors';

export interface SpindleClientOptions {
  /** Where the gateway is, e.g. `http://127.0.0.1:8080`; empty (the default) for the page's own origin. */
  baseUrl?: string;
  /** An API key or OIDC access token, sent as `Authorization: Bearer …`; a function is asked on each request. */
  token?: string | (() => string | undefined);
  /** Defaults to the global `fetch` (Node 20+, browsers). */
  fetch?: typeof globalThis.fetch;
}

export type QueryValue = string | number | boolean | undefined;

export interface RequestOptions {
  method?: string;
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as they are, with this Content-Type (a file upload); instead of `body`. */
  raw?: { bytes: Uint8Array; contentType: string };
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Sends requests to the gateway with the credential, and turns every failure into a typed error. */
export class HttpTransport {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof globalThis.fetch;

  constructor(private readonly options: SpindleClientOptions) {
    this.baseUrl = (options.baseUrl ?? '').replace(/\/+$/, '');
    // Called unbound: browsers refuse a `fetch` invoked as a method of another object.
    const custom = options.fetch;
    this.fetchImpl = custom ? (input, init) => custom(input, init) : (input, init) => globalThis.fetch(input, init);
  }

  url(path: string, query: Record<string, QueryValue> = {}): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value));
    const text = search.toString();
    return `${this.baseUrl}${path}${text ? `?${text}` : ''}`;
  }

  /** A JSON request; resolves to the parsed body (`undefined` for `204`), rejects with a typed error. */
  async json<T>(path: string, opts: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    // A state change is JSON even without a body: the gateway refuses any other (its CSRF guard, 415).
    const changes = (opts.method ?? 'GET') !== 'GET';
    if (opts.body !== undefined || changes) headers['content-type'] = 'application/json';
    if (opts.raw) headers['content-type'] = opts.raw.contentType;
    const url = this.url(path, opts.query);
    const res = await this.send(url, {
      method: opts.method ?? 'GET',
      headers,
      body: opts.raw ? (opts.raw.bytes as Uint8Array<ArrayBuffer>) : opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
    });
    if (!res.ok) throw await apiErrorOf(res);
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new SpindleProtocolError(
        url,
        `a ${res.status} answer that is not JSON (${res.headers.get('content-type') ?? 'no content type'})`,
      );
    }
  }

  /** A GET whose answer is text (a CSV); rejects with a typed error as `json` does. */
  async text(path: string, opts: Pick<RequestOptions, 'query' | 'signal'> = {}): Promise<string> {
    const res = await this.send(this.url(path, opts.query), { method: 'GET', headers: { accept: 'text/*' }, signal: opts.signal });
    if (!res.ok) throw await apiErrorOf(res);
    return res.text();
  }

  /** `fetch` with the credential; a network failure becomes `SpindleUnreachableError`, an abort stays an abort. */
  async send(url: string, init: RequestInit & { headers?: Record<string, string> }): Promise<Response> {
    const token = typeof this.options.token === 'function' ? this.options.token() : this.options.token;
    const headers = { ...init.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
    try {
      return await this.fetchImpl(url, { ...init, headers });
    } catch (e) {
      if (init.signal?.aborted) throw init.signal.reason ?? e;
      throw new SpindleUnreachableError(this.baseUrl || url, e);
    }
  }
}

/** The typed error of a non-2xx answer, from its problem+json body when it has one. */
export async function apiErrorOf(res: Response): Promise<SpindleApiError> {
  const body: unknown = await res.json().catch(() => undefined);
  const problem = body !== null && typeof body === 'object' ? (body as Problem) : {};
  const retryAfter = Number(res.headers.get('retry-after') ?? NaN);
  return new SpindleApiError(res.status, problem, Number.isFinite(retryAfter) ? retryAfter : undefined);
}
