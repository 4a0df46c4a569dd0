import { Counter, type Registry } from 'prom-client';

export type DeadLetterKind = 'invalid_json' | 'invalid_event' | 'wrong_subject' | 'missing_payload' | 'rejected_by_database';

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
