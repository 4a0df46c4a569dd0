import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { deadLetterExhaustedDeliveries, type Bus, type LiveSubscription } from '@spindle/bus';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from 'pino';
import type { RunExecutorDeps } from './execution/run-executor.types';
import { RUN_EXECUTOR_DEPS } from './runner.tokens';

/**
 * A command whose runner died during its last allowed delivery (a run that crashes every runner
 * it reaches) is never delivered again: one runner of the queue group moves it to the
 * dead-letter stream with the reason, so it is neither lost nor stuck in the work queue.
 */
@Injectable()
export class MaxDeliveriesWatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription?: LiveSubscription;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(RUN_EXECUTOR_DEPS) private readonly deps: RunExecutorDeps,
  ) {}

  onApplicationBootstrap() {
    const { names } = this.bus;
    this.subscription = deadLetterExhaustedDeliveries(this.bus, {
      service: 'runner',
      stream: names.commandsStream,
      durable: names.durables.runners,
      onDeadLettered: (streamSeq, reason) => {
        this.logger.warn({ streamSeq, reason }, 'run command dead-lettered');
        this.deps.metrics?.deadLettered('deliveries_exhausted');
      },
      onError: (err) => this.logger.error({ err }, 'could not dead-letter a command out of deliveries'),
    });
  }

  onApplicationShutdown() {
    this.subscription?.close();
  }
}
