/**
 * Not failures: a run that must wait for a person (`RunSuspended`) or that its runner is handing
 * back at a checkpoint (`RunYielded`). They unwind the walk without `node.failed`; the open
 * nodes stay open in the log, and a resumed run re-enters them.
 */
export class RunSuspended extends Error {
  constructor(
    readonly requestIds: string[],
    readonly reason: 'input' | 'tool_approval',
  ) {
    super(`run waits for ${requestIds.length} request(s)`);
    this.name = 'RunSuspended';
  }

  /** Several branches waiting at once wait together; input wins as the reason shown. */
  static merge(suspensions: RunSuspended[]): RunSuspended {
    const ids = suspensions.flatMap((s) => s.requestIds);
    return new RunSuspended(ids, suspensions.some((s) => s.reason === 'input') ? 'input' : 'tool_approval');
  }
}

export class RunYielded extends Error {
  constructor(readonly reason: string) {
    super(`run handed back: ${reason}`);
    this.name = 'RunYielded';
  }
}

export function isPause(e: unknown): e is RunSuspended | RunYielded {
  return e instanceof RunSuspended || e instanceof RunYielded;
}
