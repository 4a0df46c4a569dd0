import type { DecodeFailure } from '@spindle/bus';
import type { RejectionKind } from '@spindle/projection-kit';
import { Counter, type Registry } from 'prom-client';

export type DeadLetterKind = DecodeFailure | RejectionKind;

/** What the recorder counts, on the service's registry (served at `/metrics`). */
export class TraceMetrics {
  readonly eventsApplied: Counter;
  readonly deadLetters: Counter<'kind'>;

  constructor(registry: Registry) {
    this.eventsApplied = new Counter({
      name: 'spindle_trace_events_applied_total',
      help: 'Run events stored and projected for the first time (redeliveries not counted).',
      registers: [registry],
    });
    this.deadLetters = new Counter({
      name: 'spindle_trace_dead_letters_total',
      help: 'Messages of the events stream moved to the dead-letter stream, by why.',
      labelNames: ['kind'],
      registers: [registry],
    });
  }
}
