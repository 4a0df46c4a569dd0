import { Module, type DynamicModule } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import type { Bus } from '@spindle/bus';
import { traceMigrations, type TraceTables } from '@spindle/db';
import { ProjectionRunner, RunActivityMetrics, ScoreMetrics, type AppliedBatch } from '@spindle/projection-kit';
import { BUS, InfraModule, LOGGER, METRICS, type ServiceConfig } from '@spindle/service-kit';
import { DATABASE, DatabaseModule, repositoryProvider } from '@spindle/service-db';
import { spansExported, type Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import { TraceQueriesHandler } from './trace-queries.handler';
import { TraceProjection } from './trace.projection';
import { ScoreRepository } from './score.repository';
import { runTraceParent, ScoreSpans } from './score-spans';
import { TraceRepository } from './trace.repository';

/** The trace recorder: projects the run log into Postgres and answers trace queries. */
@Module({})
export class AppModule {
  static forConfig(config: ServiceConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [InfraModule.forRoot({ config }), DatabaseModule.forRoot({ config, owner: 'trace', migrations: traceMigrations })],
      providers: [
        repositoryProvider(TraceRepository),
        {
          provide: ScoreRepository,
          inject: [DATABASE, METRICS, BUS, LOGGER],
          useFactory: (db: Kysely<TraceTables>, metrics: Registry, bus: Bus, logger: Logger) => {
            const scoreMetrics = new ScoreMetrics(metrics);
            // Scores never enter the log, so the recorder exports them to OpenTelemetry itself, off the reply's
            // path; and only when its spans go somewhere (each export reads the run's first message for its parent).
            const scoreSpans = spansExported() ? new ScoreSpans(trace.getTracer('spindle-trace-recorder'), runTraceParent(bus)) : undefined;
            return new ScoreRepository(db, (score) => {
              scoreMetrics.observe(score);
              void scoreSpans
                ?.export(score)
                .catch((e: unknown) => logger.warn({ err: e, runId: score.runId }, 'exporting a score span failed'));
            });
          },
        },
        {
          provide: ProjectionRunner,
          inject: [BUS, DATABASE, LOGGER, METRICS, TraceRepository],
          useFactory: (bus: Bus, db: Kysely<TraceTables>, logger: Logger, metrics: Registry, traces: TraceRepository) => {
            // What the runs did, counted once per event as it is first committed to the trace.
            const activity = new RunActivityMetrics(metrics, (runIds) => traces.workflowsOf(runIds));
            const onBatch = (batch: AppliedBatch) =>
              void activity.observe(batch.events).catch((e: unknown) => logger.warn({ err: e }, 'counting run activity failed'));
            return new ProjectionRunner<TraceTables>(bus, db, new TraceProjection(bus.names.durables.traceRecorder), logger, {
              metrics,
              onBatch,
              retentionMs: config.retentionMs,
            });
          },
        },
        TraceQueriesHandler,
      ],
    };
  }
}
