import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { configureSecretMasking, createLogger, PinoNestLogger } from '@spindle/telemetry';
import type { FastifyHttpOptions } from 'fastify';
import type { ServiceConfig } from './service-config';
import { startupHold, type StartupAnswer } from './startup-hold';

/**
 * Fastify options a service may add: how requests Fastify or Node refuse before routing are
 * answered (`frameworkErrors`, `clientErrorHandler`), router limits, the HTTP server's limits and clocks.
 */
export type ServiceFastifyOptions = Pick<
  FastifyHttpOptions<Server>,
  'frameworkErrors' | 'clientErrorHandler' | 'routerOptions' | 'http' | 'trustProxy' | 'requestTimeout' | 'keepAliveTimeout'
>;

export interface BootstrapOptions {
  bodyLimit?: number;
  beforeListen?: (app: NestFastifyApplication) => void;
  ownBodyParser?: boolean;
  fastify?: ServiceFastifyOptions;
  /** How the port answers while the service waits at start for a dependency (see `StartupHold`). */
  startupAnswer?: StartupAnswer;
}

/** Builds a Nest app on Fastify with JSON logs and graceful shutdown, and starts listening. */
export async function bootstrapService(rootModule: unknown, config: ServiceConfig, opts: BootstrapOptions = {}): Promise<INestApplication> {
  configureSecretMasking(config.secretMasking);
  const logger = createLogger(config.service, { level: config.logLevel });
  startupHold.arm(config.port, config.host, opts.startupAnswer);
  const app = await NestFactory.create<NestFastifyApplication>(
    rootModule as never,
    new FastifyAdapter({ ...opts.fastify, bodyLimit: opts.bodyLimit ?? 1_048_576, logger: false }),
    { logger: new PinoNestLogger(logger), abortOnError: false, bodyParser: !opts.ownBodyParser },
  );
  app.enableShutdownHooks();
  exitByDeadline(logger, config.shutdownDeadlineMs);
  opts.beforeListen?.(app);
  await startupHold.release();
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

/**
 * The backstop of a graceful shutdown: whatever still runs (a drain NATS never answers, code
 * that ignores its abort signal) cannot keep the process past its deadline after SIGTERM.
 */
function exitByDeadline(logger: { warn(obj: object, msg: string): void }, deadlineMs: number): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      setTimeout(() => {
        logger.warn({ deadlineMs }, `still running ${deadlineMs} ms after ${signal}; exiting`);
        process.exit(1);
      }, deadlineMs).unref();
    });
  }
}
