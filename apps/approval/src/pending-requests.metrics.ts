import { registerWaitingGauges } from '@spindle/telemetry';
import type { Registry } from 'prom-client';
import type { RequestsReader } from './requests.reader';

/** Requests waiting on a person, at `/metrics`: how many of each kind, and how long the oldest has waited. */
export function registerPendingRequestsMetrics(registry: Registry, reader: RequestsReader): void {
  registerWaitingGauges(registry, {
    count: {
      name: 'spindle_human_requests_pending',
      help: 'Requests to a person not yet answered, timed out or canceled, by kind (input, approval).',
    },
    oldestAge: {
      name: 'spindle_human_request_oldest_pending_age_seconds',
      help: 'How long the oldest pending request of each kind has waited (0 when none waits).',
    },
    label: 'kind',
    values: ['input', 'approval'],
    read: async () => new Map((await reader.pendingByKind()).map((r) => [r.kind as 'input' | 'approval', r])),
  });
}
