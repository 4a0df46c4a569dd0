import { buildOpenApiDocument, httpOperations, type OpenApiDocument } from '@spindle/contracts';
import { agentBodySchema, workflowDefinitionSchema } from '@spindle/engine';
import type { GatewayConfig } from '../gateway.config';
import { ROUTE_ACCESS } from '../identity/route-access';

/** Every `/v1` operation, with the definition language's schemas the catalog routes validate with. */
export const HTTP_OPERATIONS = httpOperations({ workflowDefinition: workflowDefinitionSchema, agentSpec: agentBodySchema });

const API_VERSION = '1';

/** The OpenAPI document this gateway serves: the operations, their access rules, and its identity provider if any. */
export function gatewayOpenApiDocument(config: GatewayConfig): OpenApiDocument {
  const issuer = config.auth.oidc?.settings.issuer;
  return buildOpenApiDocument({
    operations: HTTP_OPERATIONS,
    routeAccess: ROUTE_ACCESS,
    version: API_VERSION,
    oidcDiscoveryUrl: issuer === undefined ? undefined : `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
  });
}
