// For in-process tests: the gateway's module and its edge set-up.
export { GatewayModule } from './app.module';
export { parseGatewayConfig } from './gateway.config';
export type { GatewayConfig } from './gateway.config';
export { gatewayHttpSetup } from './http/gateway-http.setup';
export { gatewayRoutes } from './gateway-routes';
export type { GatewayRoute } from './gateway-routes';
export { ROUTE_ACCESS, routeKey, isApiRoute } from './identity/route-access';
export type { RouteAccess } from './identity/route-access';
