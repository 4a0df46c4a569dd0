import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { appendToWaitingRun, type Bus } from '@spindle/bus';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import { APPROVAL_CONFIG, type ApprovalConfig } from './approval.config';
import { timeoutAnswerFor } from './request-timeout';
import { RequestsReader } from './requests.reader';

/** Requests handled per sweep at most, so one sweep stays short however many expire at once. */
const SWEEP_LIMIT = 100;

export interface SweepResult {
  /** Requests whose time-out was appended (and their run's resume queued). */
  timedOut: string[];
  /** Requests whose run was not waiting for them (answered, ended or running): nothing appended. */
  skipped: string[];
  /** Requests that failed; the next sweep tries them again. */
  failed: string[];
}

/**
 * Every `SPINDLE_REQUEST_SWEEP_MS`, times out the pending requests past their deadline by
 * appending `input.answered { timedOut }` (or, for a tool approval, `approval.resolved
 * { timedOut }`, a rejection of that call) to their waiting run. The projection then shows them
 * `timed_out`; until it does, a later sweep finds the answer in the log and appends nothing.
 */
@Injectable()
export class RequestTimeoutSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private sweeping: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(RequestsReader) private readonly reader: RequestsReader,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APPROVAL_CONFIG) private readonly config: ApprovalConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.scheduleNext();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // A sweep under way finishes its appends before the bus closes.
    await this.sweeping;
  }

  async sweepOnce(): Promise<SweepResult> {
    const result: SweepResult = { timedOut: [], skipped: [], failed: [] };
    for (const { requestId, runId } of await this.reader.expiredRequests(SWEEP_LIMIT)) {
      try {
        const { appended } = await appendToWaitingRun(this.bus, runId, timeoutAnswerFor(requestId, new Date()));
        (appended ? result.timedOut : result.skipped).push(requestId);
      } catch (e) {
        result.failed.push(requestId);
        this.logger.warn({ err: e, runId, requestId }, 'timing out an expired request failed; retrying next sweep');
      }
    }
    if (result.timedOut.length > 0) this.logger.info({ requestIds: result.timedOut }, 'expired requests timed out');
    return result;
  }

  private scheduleNext(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.sweeping = this.sweepOnce()
        .then(
          () => undefined,
          (e: unknown) => this.logger.error({ err: e }, 'request time-out sweep failed; retrying'),
        )
        .finally(() => this.scheduleNext());
    }, this.config.requestSweepMs);
  }
}
