import type { Provider } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import {
  AdmissionRepository,
  batchWakes,
  controlPlaneProjection,
  FileCollector,
  RunAdmission,
  Scheduler,
  ThreadDispatcher,
  WebhookDeliverer,
  EvaluationWorker,
  ExperimentRunner,
  ReplayRunner,
} from '@spindle/control-plane';
import type { GatewayTables } from '@spindle/db';
import { ProjectionRunner } from '@spindle/projection-kit';
import { DATABASE } from '@spindle/service-db';
import { BUS, LOGGER, METRICS, PeriodicLoop } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import type { DispatcherConfig } from './dispatcher.config';

export const ADMISSION_LOOP = Symbol('ADMISSION_LOOP');
export const THREAD_DISPATCH_LOOP = Symbol('THREAD_DISPATCH_LOOP');
export const SCHEDULE_LOOP = Symbol('SCHEDULE_LOOP');
export const WEBHOOK_DELIVERY_LOOP = Symbol('WEBHOOK_DELIVERY_LOOP');
export const FILE_COLLECTION_LOOP = Symbol('FILE_COLLECTION_LOOP');
export const EVALUATION_LOOP = Symbol('EVALUATION_LOOP');
export const EXPERIMENT_LOOP = Symbol('EXPERIMENT_LOOP');
export const REPLAY_LOOP = Symbol('REPLAY_LOOP');

/** How long the control-plane projection waits after a small batch while no run waits for room. */
const CONTROL_PLANE_LINGER_MS = 50;

/** The collector looks four times per grace period, at most every 10 minutes and at least every second. */
const collectEveryMs = (graceMs: number) => Math.max(1_000, Math.min(graceMs / 4, 600_000));

/** A pass on a timer (and on `tick`); every pass is safe on every replica at once (locks, claims). */
function loop<T>(
  provide: symbol,
  type: abstract new (...args: never[]) => T,
  name: string,
  everyMs: number,
  pass: (s: T) => Promise<unknown>,
) {
  return {
    provide,
    inject: [type, LOGGER],
    useFactory: (service: T, logger: Logger) => new PeriodicLoop({ name, everyMs, pass: () => pass(service), logger }),
  };
}

/** The control plane's projection of the log, and the passes its batches tick. */
export function dispatchLoopProviders(config: DispatcherConfig): Provider[] {
  return [
    loop(ADMISSION_LOOP, RunAdmission, 'admission', 1_000, (a) => a.tick()),
    loop(THREAD_DISPATCH_LOOP, ThreadDispatcher, 'thread dispatch', 2_000, (d) => d.dispatchReady()),
    loop(SCHEDULE_LOOP, Scheduler, 'schedule', 1_000, (s) => s.pass()),
    loop(WEBHOOK_DELIVERY_LOOP, WebhookDeliverer, 'webhook delivery', 1_000, (d) => d.deliverDue()),
    loop(EVALUATION_LOOP, EvaluationWorker, 'evaluation', 1_000, (w) => w.evaluateDue()),
    loop(EXPERIMENT_LOOP, ExperimentRunner, 'experiments', 500, (r) => r.pass()),
    loop(REPLAY_LOOP, ReplayRunner, 'replays', 500, (r) => r.pass()),
    loop(FILE_COLLECTION_LOOP, FileCollector, 'file collection', collectEveryMs(config.files.unreferencedMs), (c) => c.collect()),
    {
      // A batch wakes the passes it can give work to (`batchWakes`); their timers cover the rest.
      // Batches of 50 ms: the admission needs no event sooner, and fewer transactions cost the
      // machine less. Admission, threads and webhooks fold in one transaction: one consumer.
      provide: ProjectionRunner,
      inject: [
        BUS,
        DATABASE,
        AdmissionRepository,
        RunAdmission,
        THREAD_DISPATCH_LOOP,
        WEBHOOK_DELIVERY_LOOP,
        EVALUATION_LOOP,
        EXPERIMENT_LOOP,
        LOGGER,
        METRICS,
      ],
      useFactory: (
        bus: Bus,
        db: Kysely<GatewayTables>,
        rows: AdmissionRepository,
        admission: RunAdmission,
        threadDispatch: PeriodicLoop,
        webhookDelivery: PeriodicLoop,
        evaluation: PeriodicLoop,
        experiments: PeriodicLoop,
        logger: Logger,
        metrics: Registry,
      ) =>
        new ProjectionRunner<GatewayTables>(bus, db, controlPlaneProjection(bus.names.durables.admission, rows), logger, {
          // Its fold of a run's start is what frees room for the runs waiting to be admitted: while
          // any may wait it takes its next batch at once (20 starts against a window of 16 left
          // the last four waiting out the linger; batches are large then anyway).
          lingerMs: () => (admission.runsMayWait ? 0 : CONTROL_PLANE_LINGER_MS),
          metrics,
          retentionMs: config.retentionMs,
          onBatch: (batch) => {
            const wakes = batchWakes(batch.events);
            if (wakes.admission) admission.roomFreed();
            if (wakes.threadDispatch) void threadDispatch.tick();
            if (wakes.webhookDelivery) void webhookDelivery.tick();
            if (wakes.evaluation) void evaluation.tick();
            if (wakes.experiments) void experiments.tick();
          },
        }),
    },
  ];
}
