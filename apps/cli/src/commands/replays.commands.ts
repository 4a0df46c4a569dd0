import type { Replay } from '@spindle/contracts';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { replayRunTable, replayTable } from '../control-tables';
import { ExitCode } from '../exit-codes';
import { UsageError } from '../usage-error';
import { printed, type Act } from './act';
import { wholeNumber } from './option-parsers';

interface RunFlags {
  version?: number;
  last?: number;
  call?: boolean;
  wait: boolean;
  failOnDivergence?: boolean;
}

const POLL_MS = 500;

/** `spindle replays run|list|show`: recorded runs re-driven through a version; fails CI where one diverged. */
export function addReplayCommands(program: Command, act: Act): void {
  const replays = program
    .command('replays')
    .description('replays: recorded runs re-driven through a workflow version, their calls answered from the recording');
  replays
    .command('run <workflow> [runIds...]')
    .description('replay recorded runs (or the workflow’s --last n completed ones) through a version, wait, print where each diverged')
    .option('--version <n>', 'this version of the workflow (default its latest)', wholeNumber)
    .option('--last <n>', 'the workflow’s n most recent completed runs (1 to 100)', wholeNumber)
    .option('--call', 'make a call the recording does not have for real (default: stop the replay there)')
    .option('--no-wait', 'print the replay and return; do not wait for its runs to end')
    .option('--fail-on-divergence', 'exit 1 when any replay did not end as recorded')
    .action(
      act(async (ctx, workflow: string, runIds: string[], flags: RunFlags) => {
        const runs = [...runIds, ...(flags.last ? await lastCompleted(ctx, workflow, flags.last) : [])];
        if (runs.length === 0) throw new UsageError('name the recorded runs to replay, or --last <n>');
        let replay = await ctx.client.replays.start(workflow, {
          runs,
          ...(flags.version !== undefined && { version: flags.version }),
          onDivergence: flags.call ? 'call' : 'stop',
        });
        if (!ctx.json) ctx.note(`spindle: replay ${replay.replayId} made: ${replay.runs.length} run(s)`);
        if (flags.wait) replay = await settled(ctx, replay);
        return report(ctx, replay, flags.failOnDivergence === true);
      }),
    );
  replays
    .command('list')
    .description("the tenant's replays, newest first")
    .action(
      act(async (ctx) => {
        const { replays: list } = await ctx.client.replays.list();
        if (ctx.json) return printed(ctx, { replays: list });
        replayTable(list).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );
  replays
    .command('show <replayId>')
    .description('a replay and, for each recorded run, where its replay first diverged')
    .action(act(async (ctx, id: string) => report(ctx, await ctx.client.replays.get(id), false)));
}

async function lastCompleted(ctx: CliContext, workflow: string, n: number): Promise<string[]> {
  if (n > 100) throw new UsageError('--last takes 1 to 100 runs');
  const { runs } = await ctx.client.runs.list({ workflow, status: 'completed', limit: n });
  return runs.map((r) => r.runId);
}

async function settled(ctx: CliContext, replay: Replay): Promise<Replay> {
  let current = replay;
  while (current.runs.some((r) => r.outcome === 'pending')) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    current = await ctx.client.replays.get(replay.replayId);
  }
  return current;
}

function report(ctx: CliContext, replay: Replay, failOnDivergence: boolean): ExitCode {
  const diverged = replay.runs.filter((r) => r.outcome !== 'same' && r.outcome !== 'pending');
  if (ctx.json) printed(ctx, replay);
  else {
    const { byOutcome, costUsd } = replay.summary;
    const outcomes = Object.entries(byOutcome).map(([outcome, n]) => `${n} ${outcome}`);
    ctx.print(`${replay.replayId}  ${replay.workflow.name} v${replay.workflow.version}  on divergence: ${replay.onDivergence}`);
    ctx.print(`  ${outcomes.join(', ')}; cost recorded $${costUsd.recorded}, replay $${costUsd.replay}, spent $${costUsd.spent}`);
    ctx.print('');
    replayRunTable(replay.runs).forEach(ctx.print);
  }
  if (failOnDivergence && diverged.length > 0) {
    ctx.note(`spindle: ${diverged.length} replay(s) did not end as recorded`);
    return ExitCode.failed;
  }
  return ExitCode.ok;
}
