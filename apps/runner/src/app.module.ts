import { Module, type DynamicModule } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import type { Bus } from '@spindle/bus';
import { createModelPort } from '@spindle/llm';
import { BUS, InfraModule, LOGGER } from '@spindle/service-kit';
import type { Logger } from 'pino';
import { loadFunctionRegistry } from './functions/function-registry';
import { RunCommandsConsumer } from './run-commands.consumer';
import type { RunExecutorDeps } from './run-executor';
import type { RunnerConfig } from './runner.config';
import { RUN_EXECUTOR_DEPS, RUNNER_CONFIG } from './runner.tokens';

@Module({})
export class RunnerModule {
  static forRoot(config: RunnerConfig): DynamicModule {
    return {
      module: RunnerModule,
      imports: [InfraModule.forRoot({ config })],
      providers: [
        { provide: RUNNER_CONFIG, useValue: config },
        {
          provide: RUN_EXECUTOR_DEPS,
          inject: [BUS, LOGGER],
          useFactory: (bus: Bus, logger: Logger): RunExecutorDeps => ({
            bus,
            logger,
            model: createModelPort(config.llm),
            functions: loadFunctionRegistry(config.plugins),
            tracer: trace.getTracer('spindle-runner'),
            workerId: config.workerId,
            runTimeoutMs: config.runTimeoutMs,
            maxSteps: config.maxSteps,
          }),
        },
        RunCommandsConsumer,
      ],
    };
  }
}
