import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { deadLetterStored, parseMessageJson, type Bus } from '@spindle/bus';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from 'pino';

/** What the server says when a command was not acknowledged within its last delivery. */
interface MaxDeliveriesAdvisory {
  stream: string;
  consumer: string;
  stream_seq: number;
  deliveries: number;
}

/**
 * A command whose runner died during its last allowed delivery (a run that crashes every runner
 * it reaches) is never delivered again; the server says so in an advisory. One runner of the
 * queue group moves that command to the dead-letter stream with the reason, so it is neither
 * lost nor stuck in the work queue.
 */
@Injectable()
export class MaxDeliveriesWatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription?: Subscription;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap() {
    const { names } = this.bus;
    const subject = `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${names.commandsStream}.${names.durables.runners}`;
    this.subscription = this.bus.nc.subscribe(subject, {
      queue: `${names.durables.runners}-advisories`,
      callback: (err, msg) => {
        const advisory = err ? undefined : parseMessageJson(msg.data);
        if (!advisory?.ok) return;
        void this.deadLetter(advisory.value as MaxDeliveriesAdvisory).catch((e: unknown) =>
          this.logger.error({ err: e }, 'could not dead-letter a command out of deliveries'),
        );
      },
    });
  }

  onApplicationShutdown() {
    this.subscription?.unsubscribe();
  }

  private async deadLetter(advisory: MaxDeliveriesAdvisory): Promise<void> {
    const stored = await this.bus.jsm.streams.getMessage(advisory.stream, { seq: advisory.stream_seq }).catch(() => null);
    // Already settled by the runner that held its last delivery.
    if (!stored) return;
    const reason = `not acknowledged after ${advisory.deliveries} deliveries (its runners stopped while running it)`;
    await deadLetterStored(this.bus, 'runner', advisory.stream, stored, reason);
    this.logger.warn({ streamSeq: advisory.stream_seq, reason }, 'run command dead-lettered');
  }
}
