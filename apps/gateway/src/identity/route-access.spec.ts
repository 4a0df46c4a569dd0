import { gatewayRoutes } from '../gateway-routes';
import { isApiRoute, ROUTE_ACCESS, routeKey } from './route-access';

/** The access table against the router itself: a route nobody thought about cannot ship. */
describe('the route access table', () => {
  let routes: Array<{ url: string; methods: string[] }>;
  beforeAll(async () => {
    routes = await gatewayRoutes();
  });
  const apiKeys = () =>
    routes
      .filter((r) => isApiRoute(r.url))
      .flatMap((r) => r.methods.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').map((m) => routeKey(m, r.url)));

  it('has an entry for every /v1 route and method the gateway serves', () => {
    expect(apiKeys().filter((k) => !ROUTE_ACCESS.has(k))).toEqual([]);
  });

  it('names no route that does not exist', () => {
    const served = new Set(apiKeys());
    expect([...ROUTE_ACCESS.keys()].filter((k) => !served.has(k))).toEqual([]);
  });

  it('checks the run behind every route with a run id in its path', () => {
    const runRoutes = [...ROUTE_ACCESS.keys()].filter((k) => k.includes('/v1/runs/:id'));
    expect(runRoutes.length).toBeGreaterThan(5);
    for (const key of runRoutes) expect([key, ROUTE_ACCESS.get(key)?.run]).toEqual([key, 'id']);
  });

  it('needs more than reading for every change, and credentials for everything but how to sign in and the API description', () => {
    // The JSON-RPC endpoints' methods need their own scopes (scopeOfJsonRpcMethod), checked once the body is read.
    const jsonRpc = ['POST /v1/mcp', 'DELETE /v1/mcp', 'POST /v1/a2a/:name'];
    // Minting a stream token changes nothing: the token reads one run, as its minter could already.
    const mintsReadToken = ['POST /v1/runs/:id/stream-tokens'];
    for (const [key, access] of ROUTE_ACCESS) {
      if (!key.startsWith('GET ') && !jsonRpc.includes(key) && !mintsReadToken.includes(key))
        expect([key, access.need]).not.toEqual([key, 'runs:read']);
      if (access.need === 'public') expect(['GET /v1/auth/config', 'GET /v1/openapi.json']).toContain(key);
    }
  });

  it("takes a stream token on a run's events only", () => {
    expect([...ROUTE_ACCESS].filter(([, access]) => access.streamToken).map(([key]) => key)).toEqual(['GET /v1/runs/:id/events']);
  });
});
