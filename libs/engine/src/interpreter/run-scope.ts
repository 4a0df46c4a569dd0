import type { Usage } from '@spindle/contracts';
import type { Budget, WorkflowDefinition } from '../definition/workflow-definition.schema';
import { UsageLedger } from './usage-ledger';

/**
 * What a whole run shares across every graph it walks (the top level, loop bodies, fork
 * branches): its usage ledger, its budget, its step count.
 */
export class RunScope {
  readonly usage: UsageLedger;
  private steps = 0;
  private readonly occurrences = new Map<string, number>();

  constructor(
    readonly startedAt: number,
    readonly maxSteps: number,
    readonly budget?: Budget,
    /** Catalog workflows the run's subgraph nodes call, embedded when the run was queued. */
    readonly subgraphs: ReadonlyMap<string, { version: number; definition: WorkflowDefinition }> = new Map(),
    usageSoFar?: Usage,
  ) {
    this.usage = new UsageLedger(usageSoFar);
  }

  /** Counts a node execution; false once the run has used up its steps. */
  takeStep(): boolean {
    return ++this.steps <= this.maxSteps;
  }

  /** Counts executions of the node at `path`: the n-th one (from 0) is how a resumed run finds its record. */
  occurrence(path: string): number {
    const n = this.occurrences.get(path) ?? 0;
    this.occurrences.set(path, n + 1);
    return n;
  }

  /** Why the run may not start another node, or undefined while it is within its budget. */
  budgetBreach(now: number): string | undefined {
    const budget = this.budget;
    if (!budget) return undefined;
    const spent = this.usage.snapshot();
    const elapsedMs = now - this.startedAt;
    if (budget.maxTotalTokens !== undefined && spent.totalTokens >= budget.maxTotalTokens)
      return `the run used ${spent.totalTokens} tokens of its ${budget.maxTotalTokens}`;
    if (budget.maxTotalCost !== undefined && (spent.costUsd ?? 0) >= budget.maxTotalCost)
      return `the run spent $${spent.costUsd} of its $${budget.maxTotalCost}`;
    if (budget.maxDuration !== undefined && elapsedMs >= budget.maxDuration)
      return `the run has taken ${elapsedMs} ms of its ${budget.maxDuration} ms`;
    return undefined;
  }
}
