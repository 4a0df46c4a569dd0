import { isSpindleError, SpindleError, type Principal } from '@spindle/contracts';
import { STREAM_TOKEN_PARAMETER, type Authenticator } from '@spindle/identity';
import { asDatabaseFault } from '@spindle/db';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendProblem } from '../http/problem-response';
import { requireScope } from './require-scope';
import { isApiRoute, ROUTE_ACCESS, routeKey, type RouteAccess } from './route-access';
import type { RunOwnership } from './run-ownership';

export interface AuthenticationDeps {
  authenticator: Authenticator;
  runs: RunOwnership;
}

/**
 * Authenticates every `/v1` request before its body is read: the route's entry in the access
 * table says what it needs (a scope, any principal, or nothing); a run in the path must be the
 * caller's tenant's. A `/v1` route without an entry stops the gateway from starting.
 */
export function installAuthentication(fastify: FastifyInstance, resolveDeps: () => AuthenticationDeps): void {
  // Resolved at the first request: the app's providers exist only once it is initialised.
  let deps: AuthenticationDeps | undefined;
  const unmapped: string[] = [];
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'OPTIONS' || !isApiRoute(route.url)) continue;
      if (!ROUTE_ACCESS.has(routeKey(method, route.url))) unmapped.push(routeKey(method, route.url));
    }
  });
  fastify.addHook('onReady', async () => {
    if (unmapped.length > 0) throw new Error(`routes without an entry in ROUTE_ACCESS: ${unmapped.join(', ')}`);
  });
  fastify.addHook('onRequest', async (request, reply) => {
    // Preflights carry no credentials; the origin guard answers them.
    if (request.method === 'OPTIONS') return;
    const access = accessOf(request);
    if (access === 'open') return;
    try {
      deps ??= resolveDeps();
      request.principal = await admit(request, access, deps);
    } catch (e) {
      // The key or tenant lookup found Postgres gone: a 503 with Retry-After, never a 500.
      const refusal = asDatabaseFault(e);
      if (isSpindleError(refusal)) return sendProblem(reply, refusal);
      throw e;
    }
  });
}

/**
 * The route's entry, or `open` (the console's files, health, a public route). An unknown path under
 * `/v1` still needs credentials (then it is a 404); a route missing from the table (the gateway
 * does not start with one) is refused to everybody.
 */
function accessOf(request: FastifyRequest): RouteAccess | 'open' | 'unmapped' {
  const url = request.routeOptions.url;
  if (url === undefined) return isApiRoute(request.url.split('?')[0]) ? { need: 'authenticated' } : 'open';
  if (!isApiRoute(url)) return 'open';
  const access = ROUTE_ACCESS.get(routeKey(request.method, url));
  if (access === undefined) return 'unmapped';
  return access.need === 'public' ? 'open' : access;
}

async function admit(request: FastifyRequest, access: RouteAccess | 'unmapped', deps: AuthenticationDeps): Promise<Principal> {
  const principal = await authenticate(request, access, deps);
  if (access === 'unmapped') throw new SpindleError('forbidden', 'this route is not open to anyone');
  if (access.need !== 'authenticated' && access.need !== 'public') requireScope(principal, access.need);
  if (access.run) await deps.runs.requireOwn(principal, (request.params as Record<string, string>)[access.run] ?? '', access.lostRun);
  return principal;
}

/**
 * `Authorization`, or a stream token in `?access_token=` where the route takes one (never both).
 * The token is taken out of the query once read: no handler sees it, none can log it.
 */
async function authenticate(request: FastifyRequest, access: RouteAccess | 'unmapped', deps: AuthenticationDeps): Promise<Principal> {
  const query = request.query as Record<string, unknown> | undefined;
  const token = query?.[STREAM_TOKEN_PARAMETER];
  if (token === undefined) return deps.authenticator.authenticate(request.headers.authorization);
  delete query![STREAM_TOKEN_PARAMETER];
  if (access === 'unmapped' || !access.streamToken) {
    throw new SpindleError('unauthenticated', 'a stream token (access_token) is taken only by GET /v1/runs/{id}/events');
  }
  if (request.headers.authorization !== undefined) {
    throw new SpindleError('unauthenticated', 'send either Authorization or access_token, not both');
  }
  if (typeof token !== 'string') throw new SpindleError('unauthenticated', 'send access_token once');
  return deps.authenticator.authenticateStreamToken(token, (request.params as Record<string, string>)[access.run ?? 'id'] ?? '');
}
