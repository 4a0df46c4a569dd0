import { readRunLog, type Bus } from '@spindle/bus';
import type { Replay, ReplayOutcome, ReplayRunReport } from '@spindle/contracts';
import { replayReport } from '@spindle/engine';
import type { StoredReplay } from './replay.repository';

const NO_CALLS = { modelServed: 0, modelMade: 0, toolServed: 0, toolMade: 0 };
const NO_COST = { recorded: 0, replay: 0, spent: 0 };

/** A replay with each run's report, read from the recorded run's log and its replay's (never stored: the logs are the truth). */
export async function replayWithReports(bus: Bus, stored: StoredReplay): Promise<Replay> {
  const runs = await Promise.all(stored.runs.map((run) => runReport(bus, run)));
  const byOutcome: Partial<Record<ReplayOutcome, number>> = {};
  const costUsd = { ...NO_COST };
  for (const run of runs) {
    byOutcome[run.outcome] = (byOutcome[run.outcome] ?? 0) + 1;
    for (const key of ['recorded', 'replay', 'spent'] as const) costUsd[key] = Math.round((costUsd[key] + run.costUsd[key]) * 1e9) / 1e9;
  }
  return {
    replayId: stored.replayId,
    workflow: stored.workflow,
    onDivergence: stored.onDivergence,
    createdAt: stored.createdAt,
    createdBy: stored.createdBy,
    summary: { runs: runs.length, byOutcome, costUsd },
    runs,
  };
}

async function runReport(bus: Bus, run: StoredReplay['runs'][number]): Promise<ReplayRunReport> {
  const ids = { sourceRunId: run.sourceRunId, runId: run.runId };
  if (run.status !== 'started')
    return {
      ...ids,
      outcome: run.status === 'failed' ? 'failed' : 'pending',
      divergence: null,
      calls: NO_CALLS,
      costUsd: NO_COST,
      error: run.error,
    };
  const [recorded, replay] = await Promise.all([readRunLog(bus, run.sourceRunId), readRunLog(bus, run.runId)]);
  if (recorded.events.length === 0) {
    const error = { code: 'run_not_found', message: `the log of run ${run.sourceRunId} is gone (erased or past retention)` };
    return { ...ids, outcome: 'failed', divergence: null, calls: NO_CALLS, costUsd: NO_COST, error };
  }
  return { ...ids, ...replayReport(recorded.events, replay.events) };
}
