import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, PinoNestLogger } from '@spindle/telemetry';
import type { ServiceConfig } from './service-config';

/** Builds a Nest app on Fastify with JSON logs and graceful shutdown, and starts listening. */
export async function bootstrapService(rootModule: unknown, config: ServiceConfig, opts: { bodyLimit?: number; beforeListen?: (app: NestFastifyApplication) => void; ownBodyParser?: boolean } = {}): Promise<INestApplication> {
  const logger = createLogger(config.service, { level: config.logLevel });
  const app = await NestFactory.create<NestFastifyApplication>(
    rootModule as never,
    new FastifyAdapter({ bodyLimit: opts.bodyLimit ?? 1_048_576, logger: false }),
    { logger: new PinoNestLogger(logger), abortOnError: false, bodyParser: !opts.ownBodyParser },
  );
  app.enableShutdownHooks();
  opts.beforeListen?.(app);
  await app.listen(config.port, config.host);
  logger.info({ port: config.port, namespace: config.namespace || undefined }, `${config.service} listening`);
  return app;
}

/** Runs `main`, turning a start-up failure into one clear log line and a non-zero exit. */
export function runMain(service: string, main: () => Promise<unknown>): void {
  main().catch((e: unknown) => {
    createLogger(service).fatal({ err: e }, (e as Error)?.message ?? String(e));
    process.exit(1);
  });
}
