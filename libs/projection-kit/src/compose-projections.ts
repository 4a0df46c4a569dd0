import { eitherSelection, EVERY_RUN_EVENT } from '@spindle/contracts';
import type { Projection } from './projection';

/** A fold that shares another projection's consumer: everything of a projection but its name and durable. */
export type Fold<DB> = Omit<Projection<DB>, 'name' | 'durable'>;

/**
 * One projection of several folds over one service's tables: one durable consumer, and every
 * batch applied to all of them in the same transaction, so they never disagree about how far the
 * log is applied. Named after the first.
 */
export function composeProjections<DB>(lead: Projection<DB>, ...more: Fold<DB>[]): Projection<DB> {
  const all: Fold<DB>[] = [lead, ...more];
  return {
    name: lead.name,
    durable: lead.durable,
    reads: all.map((fold) => fold.reads ?? EVERY_RUN_EVENT).reduce(eitherSelection),
    async apply(trx, events) {
      for (const fold of all) await fold.apply(trx, events);
    },
    async reset(trx) {
      for (const fold of all) await fold.reset(trx);
    },
    async erase(trx, runIds) {
      for (const fold of all) await fold.erase(trx, runIds);
    },
  };
}
