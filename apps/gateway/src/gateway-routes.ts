import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { GatewayModule } from './app.module';
import { parseGatewayConfig } from './gateway.config';
import { gatewayHttpSetup } from './http/gateway-http.setup';

export interface GatewayRoute {
  url: string;
  methods: string[];
}

/**
 * Every route the gateway serves, as Fastify registers them, from the app built in preview mode
 * (nothing connects to NATS or Postgres). For tests generated from the router.
 */
export async function gatewayRoutes(): Promise<GatewayRoute[]> {
  const config = parseGatewayConfig({ PORT: '0', SPINDLE_NAMESPACE: 'routes', LOG_LEVEL: 'error' });
  const setup = gatewayHttpSetup(config);
  const adapter = new FastifyAdapter({ ...setup.fastify, logger: false });
  const seen = new Map<string, Set<string>>();
  adapter.getInstance().addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) seen.set(route.url, (seen.get(route.url) ?? new Set()).add(method));
  });
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(config), adapter, {
    preview: true,
    logger: false,
    abortOnError: false,
    bodyParser: false,
  });
  setup.beforeListen(app);
  await app.init();
  await app.close();
  return [...seen].map(([url, methods]) => ({ url, methods: [...methods].sort() })).sort((a, b) => a.url.localeCompare(b.url));
}
