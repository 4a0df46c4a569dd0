import { isTerminalEvent, type RunEvent } from '@spindle/contracts';
import { admissionStateAfter, webhookEventAfter } from '@spindle/projections';

/** Which of the dispatcher's passes a projection batch gives work to (each also runs on its timer). */
export interface BatchWakes {
  /** A run queued, started, resumed, paused or ended: room may have freed, or a run may wait. */
  readonly admission: boolean;
  /** A run ended: a thread's next run may start. */
  readonly threadDispatch: boolean;
  /** An event a webhook can be told of: the batch may have made deliveries due. */
  readonly webhookDelivery: boolean;
  /** A run completed: its evaluators' judgements may be due. */
  readonly evaluation: boolean;
  /** A run ended: an experiment's item may have, and its slot freed. */
  readonly experiments: boolean;
}

/** Most events (nodes, models, tools, tokens' checkpoints) wake nothing, and the pass's query is saved. */
export function batchWakes(events: readonly RunEvent[]): BatchWakes {
  return {
    admission: events.some((e) => admissionStateAfter[e.type] !== null),
    threadDispatch: events.some(isTerminalEvent),
    webhookDelivery: events.some((e) => webhookEventAfter[e.type] !== null),
    evaluation: events.some((e) => e.type === 'run.completed'),
    experiments: events.some(isTerminalEvent),
  };
}
