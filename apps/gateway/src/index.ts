// For in-process tests: the gateway's module and its edge set-up.
export { GatewayModule } from './app.module';
export { parseGatewayConfig } from './gateway.config';
export type { GatewayConfig } from './gateway.config';
export { gatewayHttpSetup } from './http/gateway-http.setup';
