import { Module, type DynamicModule } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { watchConsumerLag, type Bus } from '@spindle/bus';
import { createEgressGuard } from '@spindle/egress';
import { createModelPort } from '@spindle/llm';
import { BUS, InfraModule, LOGGER, METRICS } from '@spindle/service-kit';
import type { Registry } from 'prom-client';
import type { EgressGuard } from '@spindle/egress';
import type { Logger } from 'pino';
import { mcpPolicyFrom } from './mcp/mcp-policy';
import { loadPlugins, type LoadedPlugins } from './plugins/plugin-loader';
import { CapabilitiesAnnouncer } from './capabilities.announcer';
import { MaxDeliveriesWatcher } from './max-deliveries.watcher';
import { RunCommandsConsumer } from './run-commands.consumer';
import { StoredNodeResults } from './stored-node-results';
import type { RunExecutorDeps } from './run-executor';
import type { RunnerConfig } from './runner.config';
import { RUN_EXECUTOR_DEPS, RUNNER_CAPABILITIES, RUNNER_CONFIG, RUNNER_PLUGINS } from './runner.tokens';
import { StepSlots } from './execution/step-slots';
import { runFileReader } from './execution/run-files';
import { RunnerMetrics } from './runner.metrics';

interface RunnerPlugins {
  egress: EgressGuard;
  plugins: LoadedPlugins;
}

@Module({})
export class RunnerModule {
  static forRoot(config: RunnerConfig): DynamicModule {
    return {
      module: RunnerModule,
      imports: [InfraModule.forRoot({ config })],
      providers: [
        { provide: RUNNER_CONFIG, useValue: config },
        {
          provide: RUNNER_PLUGINS,
          inject: [LOGGER],
          useFactory: (logger: Logger): RunnerPlugins => {
            // One guard for every outbound request of the runner: plugins' fetch and MCP servers.
            const egress = createEgressGuard(config.egress);
            const plugins = loadPlugins(config.plugins, { fetch: egress.fetch });
            logger.info(
              { functions: plugins.functions.names(), tools: plugins.tools.names(), retrievers: plugins.retrievers.names() },
              'plugins loaded',
            );
            return { egress, plugins };
          },
        },
        { provide: RUNNER_CAPABILITIES, inject: [RUNNER_PLUGINS], useFactory: ({ plugins }: RunnerPlugins) => plugins.capabilities },
        {
          provide: RUN_EXECUTOR_DEPS,
          inject: [BUS, LOGGER, METRICS, RUNNER_PLUGINS],
          useFactory: (bus: Bus, logger: Logger, registry: Registry, { egress, plugins }: RunnerPlugins): RunExecutorDeps => {
            const slots = new StepSlots(config.stepSlots);
            const { names } = bus;
            watchConsumerLag(registry, 'runners', bus, { stream: names.commandsStream, durable: names.durables.runners });
            return {
              bus,
              logger,
              model: createModelPort(config.llm, {
                onPriceFileError: (e) =>
                  logger.error({ err: e }, 'the model price file changed but cannot be used; the previous prices stay'),
                readFile: runFileReader(bus),
              }),
              functions: plugins.functions,
              tools: plugins.tools,
              retrievers: plugins.retrievers,
              tracer: trace.getTracer('spindle-runner'),
              workerId: config.workerId,
              runTimeoutMs: config.runTimeoutMs,
              maxEventBytes: config.maxEventBytes,
              runTimeoutCeilingMs: config.runTimeoutCeilingMs,
              maxSteps: config.maxSteps,
              mcpPolicy: mcpPolicyFrom(config.mcpAllow),
              egressFetch: egress.fetch,
              maxAttempts: config.maxAttempts,
              results: new StoredNodeResults(bus, logger),
              maxLogBytes: config.maxLogBytes,
              busRetryMs: config.busRetryMs,
              slots,
              metrics: new RunnerMetrics(registry, config.concurrency, slots),
              captureGenAiContent: config.captureGenAiContent,
            };
          },
        },
        RunCommandsConsumer,
        MaxDeliveriesWatcher,
        CapabilitiesAnnouncer,
      ],
    };
  }
}
