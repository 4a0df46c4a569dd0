import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { deleteStreams, connectBus } from '@spindle/bus';
import { createDatabase, dropSchema, serviceSchema } from '@spindle/db';
import { GatewayModule, gatewayHttpSetup, parseGatewayConfig } from '@spindle/gateway';
import { parseRunnerConfig, RunnerModule } from '@spindle/runner';
import { bootstrapService } from '@spindle/service-kit';
import { startTelemetry, type Telemetry } from '@spindle/telemetry';
import { FakeOpenAIServer, readSse, testEnv, testNamespace } from '@spindle/testing';

/** One trace from the HTTP request through the start command and node spans to the model call. */
describe('W3C trace context from HTTP to the model call', () => {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(exporter);
  const namespace = testNamespace('o');
  const fake = new FakeOpenAIServer();
  let telemetry: Telemetry;
  let apps: INestApplication[] = [];
  const keyFile = join(tmpdir(), `spindle-${namespace}-admin-key`);
  const auth = () => ({ authorization: `Bearer ${readFileSync(keyFile, 'utf8').trim()}` });

  beforeAll(async () => {
    telemetry = startTelemetry({ serviceName: 'spindle-e2e', spanProcessors: [processor] });
    await fake.start();
    const env = { ...testEnv(), SPINDLE_NAMESPACE: namespace, HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    const common = {
      NATS_URL: env.natsUrl,
      DATABASE_URL: env.databaseUrl,
      SPINDLE_NAMESPACE: namespace,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    };
    const gatewayConfig = parseGatewayConfig({ ...common, PORT: '0', SPINDLE_BOOTSTRAP_KEY_FILE: keyFile });
    const runnerConfig = parseRunnerConfig({ ...common, RUNNER_PORT: '0', OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl });
    apps = [
      await bootstrapService(GatewayModule.forRoot(gatewayConfig), gatewayConfig, gatewayHttpSetup(gatewayConfig)),
      await bootstrapService(RunnerModule.forRoot(runnerConfig), runnerConfig),
    ];
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    const { natsUrl, databaseUrl } = testEnv();
    const bus = await connectBus({ url: natsUrl, namespace, name: 'cleanup' });
    await deleteStreams(bus);
    await bus.close();
    const db = createDatabase({ url: databaseUrl, schema: 'public', maxConnections: 1 });
    await dropSchema(db, serviceSchema('gateway', namespace));
    await db.destroy();
    await fake.stop();
    await telemetry.shutdown();
    rmSync(keyFile, { force: true });
  });

  it('shares one trace id and nests run → node → model under the HTTP span', async () => {
    const base = await apps[0].getUrl();
    const put = await fetch(`${base}/v1/workflows/traced`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...auth() },
      body: JSON.stringify({ kind: 'graph', nodes: [{ id: 'ask', type: 'llm', model: 'compatible:m', prompt: 'hi' }] }),
    });
    expect(put.status).toBe(201);
    const { frames } = await readSse(`${base}/v1/workflows/traced/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth() },
      body: '{}',
    });
    expect(frames.at(-1)?.event).toBe('run.completed');

    await processor.forceFlush();
    const spans = exporter.getFinishedSpans();
    const named = (prefix: string) => spans.find((s) => s.name.startsWith(prefix)) as ReadableSpan;
    const http = named('POST /v1/workflows/:name/runs');
    const run = named('run traced');
    const node = named('node ask');
    const model = named('model compatible:m');
    for (const span of [http, run, node, model]) expect(span).toBeDefined();
    const traceId = http.spanContext().traceId;
    expect([run, node, model].map((s) => s.spanContext().traceId)).toEqual([traceId, traceId, traceId]);
    expect(run.parentSpanContext?.spanId).toBe(http.spanContext().spanId);
    expect(node.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(model.parentSpanContext?.spanId).toBe(node.spanContext().spanId);
  });
});
