import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { renderMetrics } from '@spindle/telemetry';
import type { Registry } from 'prom-client';
import { METRICS, READINESS } from './tokens';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** `/healthz`: the process is alive. `/readyz`: its dependencies answer. `/metrics`: Prometheus. */
@Controller()
export class HealthController {
  constructor(
    @Inject(READINESS) private readonly checks: ReadinessCheck[],
    @Inject(METRICS) private readonly metrics: Registry,
  ) {}

  @Get('healthz')
  @Header('Cache-Control', 'no-store')
  healthz() {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Header('Cache-Control', 'no-store')
  async readyz(@Res() reply: FastifyReply) {
    const results = await Promise.all(
      this.checks.map(async (c) => {
        try {
          await withTimeout(c.check(), 2_000);
          return [c.name, 'ok'] as const;
        } catch (e) {
          return [c.name, `down: ${(e as Error).message}`] as const;
        }
      }),
    );
    const ready = results.every(([, s]) => s === 'ok');
    await reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) });
  }

  @Get('metrics')
  async metricsText(@Res() reply: FastifyReply) {
    const { contentType, body } = await renderMetrics(this.metrics);
    await reply.header('content-type', contentType).send(body);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms).unref())]);
}
