import { Inject, Injectable } from '@nestjs/common';
import { readRunnerCapabilities, type Bus } from '@spindle/bus';
import type { CapabilityCheckOutcome, RunnerCapabilities } from '@spindle/contracts';
import { capabilityRefusal } from '@spindle/control-plane';
import { namedCapabilities, type WorkflowDefinition } from '@spindle/engine';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from 'pino';

/**
 * What the live runners announce they can run, read from the bus each time it is asked (a handful
 * of keys): the listing routes and the save-time check of workflows both read it here.
 */
@Injectable()
export class RunnerCapabilitiesService {
  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  live(): Promise<RunnerCapabilities[]> {
    return readRunnerCapabilities(this.bus, (key, reason) =>
      this.logger.warn({ key, reason }, 'skipped an entry of the runners’ capabilities bucket that is not an announcement'),
    );
  }

  /**
   * Throws the refusal of a definition the live runners cannot run; answers how it was checked.
   * With no runner announced (a stack whose runners have not started yet) nothing is refused.
   */
  async check(definition: WorkflowDefinition, asked: 'full' | 'definition-only'): Promise<CapabilityCheckOutcome> {
    if (asked === 'definition-only') return 'skipped-on-request';
    // Nothing a runner must have: such a save does not depend on the bus answering.
    if (namedCapabilities(definition).length === 0 && definition.runTimeoutMs === undefined) return 'passed';
    const runners = await this.live();
    if (runners.length === 0) return 'skipped-no-runners';
    const refusal = capabilityRefusal(definition, runners);
    if (refusal) throw refusal;
    return 'passed';
  }
}
