import type { Provider } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import type { GatewayTables } from '@spindle/db';
import { FileLibrary } from '@spindle/control-plane';
import { KnowledgeService } from '@spindle/knowledge';
import { createEmbeddingModelResolver } from '@spindle/llm';
import { DATABASE } from '@spindle/service-db';
import { BUS, LOGGER, PeriodicLoop } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import type { DispatcherConfig } from './dispatcher.config';

export const INGESTION_LOOP = Symbol('INGESTION_LOOP');

/** Ingestion and search of knowledge bases: the service the queries call, and the loop that ingests what no answer took. */
export function knowledgeProviders(config: DispatcherConfig): Provider[] {
  return [
    {
      provide: KnowledgeService,
      inject: [BUS, DATABASE, LOGGER, FileLibrary],
      useFactory: (bus: Bus, db: Kysely<GatewayTables>, logger: Logger, files: FileLibrary) =>
        new KnowledgeService(
          bus,
          db,
          createEmbeddingModelResolver(config.llm),
          {
            maxDocumentBytes: config.maxDocumentBytes,
            leaseMs: 60_000,
            releaseBytes: (sha256) => files.releaseBytes(sha256),
          },
          logger,
        ),
    },
    {
      provide: INGESTION_LOOP,
      inject: [KnowledgeService, LOGGER],
      useFactory: (knowledge: KnowledgeService, logger: Logger) =>
        new PeriodicLoop({ name: 'document ingestion', everyMs: 2_000, pass: () => knowledge.ingestPending(), logger }),
    },
  ];
}
