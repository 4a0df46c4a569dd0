import type { RunEvent, RunEventSelection } from '@spindle/contracts';
import type { Transaction } from 'kysely';

/**
 * A read model of the run log: its fold, nothing else. The projection runner hands `apply` each
 * run's events exactly once, gapless and in seq order, starting right after what was applied
 * before and ending at the run's terminal event, inside the transaction that also records how
 * far each run is applied. So a fold never deals with repeats, reordering, gaps, forged or
 * undecodable messages: the runner settles all of that the same way for every projection.
 */
export interface Projection<DB> {
  /** Names the projection: its durable consumer, dead letters (`dlq.<name>`), lock class, logs. */
  readonly name: string;
  /** The durable consumer this projection reads the events stream with. */
  readonly durable: string;
  /**
   * The event types `apply` reads beyond their envelope (absent: every type). The others reach it
   * with their data unchecked, for their seq and type only; the conformance suite holds a
   * projection to what it declares (its rows do not change whatever the others' data).
   */
  readonly reads?: RunEventSelection;
  /** Folds events of one or more runs (each run's slice in seq order) into the projection's rows. */
  apply(trx: Transaction<DB>, events: readonly RunEvent[]): Promise<void>;
  /** Empties the projection's rows (a rebuild replays the log into them). */
  reset(trx: Transaction<DB>): Promise<void>;
  /**
   * Deletes every row these runs left in the projection: a data-protection erase, or runs past
   * the retention. The kit forgets their progress in the same transaction.
   */
  erase(trx: Transaction<DB>, runIds: readonly string[]): Promise<void>;
}
