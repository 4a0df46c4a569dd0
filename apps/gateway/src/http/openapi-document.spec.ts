import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { runEventTypes } from '@spindle/contracts';
import { gatewayRoutes } from '../gateway-routes';
import { parseGatewayConfig } from '../gateway.config';
import { isApiRoute, ROUTE_ACCESS, routeKey } from '../identity/route-access';
import { gatewayOpenApiDocument } from './http-api';

interface Operation {
  security: unknown[];
  responses: Record<string, { content?: Record<string, { 'x-sse-events'?: Record<string, unknown> }> }>;
}
type Paths = Record<string, Record<string, Operation>>;

/** The OpenAPI document against the router itself: a route without a documented operation cannot ship. */
describe('the OpenAPI document', () => {
  const document = gatewayOpenApiDocument(parseGatewayConfig({ PORT: '0', SPINDLE_NAMESPACE: 'openapi', LOG_LEVEL: 'error' }));
  const paths = document.paths as Paths;
  const documented = new Set(
    Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`)),
  );
  let served: Set<string>;
  beforeAll(async () => {
    const routes = await gatewayRoutes();
    served = new Set(
      routes
        .filter((r) => isApiRoute(r.url))
        .flatMap((r) => r.methods.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').map((m) => routeKey(m, r.url))),
    );
  });

  it('documents every /v1 route and method the gateway serves', () => {
    expect([...served].filter((k) => !documented.has(k))).toEqual([]);
  });

  it('documents no operation the gateway does not serve', () => {
    expect([...documented].filter((k) => !served.has(k))).toEqual([]);
  });

  it('is valid JSON Schema 2020-12 throughout: every component compiles and every $ref resolves', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ $id: 'spindle', components: document.components });
    const components = (document.components as { schemas: Record<string, unknown> }).schemas;
    for (const name of Object.keys(components)) expect(() => ajv.compile({ $ref: `spindle#/components/schemas/${name}` })).not.toThrow();
    const refs = JSON.stringify(document).match(/"\$ref":"#\/components\/schemas\/[^"]+"/g) ?? [];
    for (const ref of refs) expect(Object.keys(components)).toContain(ref.slice('"$ref":"#/components/schemas/'.length, -1));
  });

  it('asks for the scope the route table names, and for nothing on public routes', () => {
    for (const [key, access] of ROUTE_ACCESS) {
      const [method, path] = key.split(' ');
      const op = paths[path.replace(/:(\w+)/g, '{$1}')][method.toLowerCase()];
      if (access.need === 'public') expect([key, op.security]).toEqual([key, []]);
      else if (access.need === 'authenticated') expect([key, op.security]).toEqual([key, [{ apiKey: [] }]]);
      else expect([key, op.security]).toEqual([key, [{ apiKey: [access.need] }, ...(access.streamToken ? [{ streamToken: [] }] : [])]]);
    }
  });

  it('describes the event stream: every run event type by name, tokens and the error frame', () => {
    const stream = paths['/v1/runs/{id}/events'].get.responses['200'].content?.['text/event-stream'];
    expect(Object.keys(stream?.['x-sse-events'] ?? {}).sort()).toEqual([...runEventTypes, 'token', 'error'].sort());
    expect(paths['/v1/runs/{id}/events'].get.responses['200'].content?.['application/json']).toBeDefined();
  });

  it("offers OpenID Connect when the gateway accepts the identity provider's tokens", () => {
    const config = parseGatewayConfig({
      PORT: '0',
      SPINDLE_NAMESPACE: 'openapi',
      LOG_LEVEL: 'error',
      SPINDLE_OIDC_ISSUER: 'https://idp.example.com/',
      SPINDLE_OIDC_AUDIENCE: 'spindle-api',
    });
    const withOidc = gatewayOpenApiDocument(config) as { components: { securitySchemes: Record<string, { openIdConnectUrl?: string }> } };
    expect(withOidc.components.securitySchemes.oidc.openIdConnectUrl).toBe('https://idp.example.com/.well-known/openid-configuration');
    const run = (withOidc as unknown as { paths: Paths }).paths['/v1/runs/{id}'].get;
    expect(run.security).toEqual([{ apiKey: ['runs:read'] }, { oidc: ['runs:read'] }]);
  });
});
