import { Counter, Gauge, type Registry } from 'prom-client';
import type { StepSlots } from './execution/step-slots';

/**
 * What a runner shows at `/metrics` about its capacity and its run logs: runs held against
 * `RUNNER_CONCURRENCY`, step slots in use and runs waiting for one, and the messages and events
 * its log writers stored (events per message is the group commit at work). No run id in a label.
 */
export class RunnerMetrics {
  readonly logMessages: Counter;
  readonly logEvents: Counter;
  private readonly deadLetters: Counter<'kind'>;
  private held: () => number = () => 0;

  constructor(registry: Registry, capacity: number, slots: StepSlots) {
    const held = () => this.held();
    new Gauge({
      name: 'spindle_runner_runs_held',
      help: 'Runs this runner holds now, stepping or waiting on a model, a tool or the log.',
      registers: [registry],
      collect() {
        this.set(held());
      },
    });
    new Gauge({ name: 'spindle_runner_run_capacity', help: 'Runs this runner may hold (RUNNER_CONCURRENCY).', registers: [registry] }).set(
      capacity,
    );
    new Gauge({ name: 'spindle_runner_step_slots', help: 'Runs that may compute at once (RUNNER_STEP_SLOTS).', registers: [registry] }).set(
      slots.size,
    );
    new Gauge({
      name: 'spindle_runner_step_slots_in_use',
      help: 'Step slots taken by runs computing now.',
      registers: [registry],
      collect() {
        this.set(slots.inUse);
      },
    });
    new Gauge({
      name: 'spindle_runner_step_slots_waiting',
      help: 'Runs ready to compute that wait for a step slot.',
      registers: [registry],
      collect() {
        this.set(slots.queued);
      },
    });
    this.logMessages = new Counter({
      name: 'spindle_run_log_messages_total',
      help: 'Messages this runner stored on run logs (each one event or a batch of them).',
      registers: [registry],
    });
    this.deadLetters = new Counter({
      name: 'spindle_runner_dead_letters_total',
      help: 'Run commands moved to the dead-letter stream, by why (invalid_command, unrunnable, retries_exhausted, deliveries_exhausted).',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.logEvents = new Counter({
      name: 'spindle_run_log_events_total',
      help: 'Events this runner stored on run logs.',
      registers: [registry],
    });
  }

  /** A run command moved to the dead-letter stream, by why. */
  deadLettered(kind: string): void {
    this.deadLetters.inc({ kind });
  }

  /** Where the held-runs gauge reads from (the command consumer). */
  countHeld(held: () => number): void {
    this.held = held;
  }
}
