import type { Usage } from '@spindle/contracts';

/** The run's running token totals: every model call adds to it, every `model.completed` reports it. */
export class UsageLedger {
  private totals: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

  add(usage: Usage): Usage {
    this.totals = {
      inputTokens: this.totals.inputTokens + usage.inputTokens,
      outputTokens: this.totals.outputTokens + usage.outputTokens,
      totalTokens: this.totals.totalTokens + usage.totalTokens,
    };
    return this.snapshot();
  }

  snapshot(): Usage {
    return { ...this.totals };
  }
}
