import { addCallUsage, EMPTY_USAGE, type Usage } from '@spindle/contracts';

/** The run's running token totals: every model call adds to it, every `model.completed` reports it. */
export class UsageLedger {
  private totals: Usage;

  /** A resumed run's ledger continues from the totals its log last recorded. */
  constructor(from: Usage = EMPTY_USAGE) {
    this.totals = { ...from };
  }

  add(usage: Usage): Usage {
    this.totals = addCallUsage(this.totals, usage);
    return this.snapshot();
  }

  snapshot(): Usage {
    return { ...this.totals };
  }
}
