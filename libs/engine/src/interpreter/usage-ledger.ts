import type { Usage } from '@spindle/contracts';

/** The run's running token totals: every model call adds to it, every `model.completed` reports it. */
export class UsageLedger {
  private totals: Usage;

  /** A resumed run's ledger continues from the totals its log last recorded. */
  constructor(from: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }) {
    this.totals = { ...from };
  }

  add(usage: Usage): Usage {
    const cost = (this.totals.costUsd ?? 0) + (usage.costUsd ?? 0);
    this.totals = {
      inputTokens: this.totals.inputTokens + usage.inputTokens,
      outputTokens: this.totals.outputTokens + usage.outputTokens,
      totalTokens: this.totals.totalTokens + usage.totalTokens,
      // Rounded so float sums stay readable; absent until some call had a price.
      ...(this.totals.costUsd !== undefined || usage.costUsd !== undefined ? { costUsd: Math.round(cost * 1e9) / 1e9 } : {}),
    };
    return this.snapshot();
  }

  snapshot(): Usage {
    return { ...this.totals };
  }
}
