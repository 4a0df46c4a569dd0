import { performance } from 'node:perf_hooks';
import { startPgWrites, type PgWrites, type WritesScope } from './pg-writes';
import { cpuBetween, readCpuByProcess } from './process-cpu';
import { median } from './stats';

// How each peer framework's baseline is measured, the same for all: one `steps`-step chain that
// counts to `steps`, run in this process sequentially and then `concurrency` at once.

export interface ConcurrentFigures {
  /** `concurrency` chains at once, `rounds` rounds: median steps per second. */
  nodesPerSec: number;
  /** CPU per step of the concurrent rounds, by process role (this process runs the framework; Postgres its backends). */
  cpuPerNodeUs: Array<[string, number]>;
  /** What the concurrent rounds made Postgres do, per step (when a scope to count in was given). */
  persistedPerStep?: PgWrites;
}

export interface ChainFigures extends ConcurrentFigures {
  /** Sequential chains, one at a time: median ms per step. */
  msPerStep: number;
}

/** `runs` chains one after the other: the median of their wall time per step, ms. */
export async function sequentialMsPerStep(run: (index: number) => Promise<void>, steps: number, runs: number): Promise<number> {
  const perStep: number[] = [];
  for (let r = 0; r < runs; r++) {
    const started = performance.now();
    await run(r);
    perStep.push((performance.now() - started) / steps);
  }
  return median(perStep);
}

/**
 * `rounds` rounds of `concurrency` chains started at once: steps per second of each round (all its
 * steps over its wall time), the CPU every process used per step over all rounds, and what was
 * written to Postgres in `writes` over all rounds. One round at the same concurrency goes first,
 * unmeasured, as it does for the stack (`measureConcurrentChains`): what is measured is a warm
 * process's steady state, not its first compilations and connections.
 */
export async function concurrentRounds(
  run: (round: number, index: number) => Promise<void>,
  opts: { steps: number; concurrency: number; rounds: number; writes?: WritesScope },
): Promise<ConcurrentFigures> {
  const { steps, concurrency, rounds } = opts;
  await Promise.all(Array.from({ length: concurrency }, (_, i) => run(rounds, i)));
  const writes = opts.writes && (await startPgWrites(opts.writes));
  const rates: number[] = [];
  const cpuBefore = readCpuByProcess();
  for (let r = 0; r < rounds; r++) {
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, (_, i) => run(r, i)));
    rates.push((concurrency * steps) / ((performance.now() - started) / 1000));
  }
  const executed = rounds * concurrency * steps;
  const cpuPerNodeUs = cpuBetween(cpuBefore, readCpuByProcess()).map(([role, ms]): [string, number] => [role, (ms * 1000) / executed]);
  const persistedPerStep = await writes?.stop(executed);
  return { nodesPerSec: median(rates), cpuPerNodeUs, ...(persistedPerStep ? { persistedPerStep } : {}) };
}
