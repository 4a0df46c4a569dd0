import type { Experiment, NewExperimentBody } from '@spindle/contracts';
import type { Command } from 'commander';
import { experimentComparisonTable, experimentItemTable, experimentTable } from '../control-tables';
import { ExitCode } from '../exit-codes';
import { collectThreshold, summaryLines, thresholdFailures, type ScoreThreshold } from '../experiment-thresholds';
import { parseJsonArgument, parseJsonObjectArgument } from '../json-argument';
import type { CliContext } from '../cli-context';
import { printed, type Act } from './act';
import { wholeNumber } from './option-parsers';

interface RunFlags {
  dataset: string;
  datasetVersion?: number;
  version?: number;
  name?: string;
  parameters?: string;
  evaluators?: string;
  concurrency?: number;
  maxCost?: string;
  wait: boolean;
  failUnder?: ScoreThreshold[];
}

const POLL_MS = 500;

/** `spindle experiments run|list|show|compare|cancel`: a dataset through a workflow version, judged; fails CI under a threshold. */
export function addExperimentCommands(program: Command, act: Act): void {
  const experiments = program
    .command('experiments')
    .description('experiments: a dataset version run through a workflow version and judged');
  experiments
    .command('run <workflow>')
    .description('run a dataset through the workflow, wait for it to end, print its summary (exit 1 under a --fail-under)')
    .requiredOption('--dataset <name>', 'the dataset whose items are the runs’ inputs')
    .option('--dataset-version <n>', 'this version of the dataset (default its latest)', wholeNumber)
    .option('--version <n>', 'this version of the workflow (default its latest)', wholeNumber)
    .option('--name <text>', 'what the experiment tries')
    .option('-p, --parameters <json>', "the runs' parameters (JSON, or @file)")
    .option('--evaluators <json>', 'the evaluators that judge each run (a JSON list, or @file)')
    .option('--concurrency <n>', 'runs at once (1 to 20, default 4)', wholeNumber)
    .option('--max-cost <usd>', 'start no item once the ended ones cost this much')
    .option('--no-wait', 'print the experiment and return; do not wait for it to end')
    .option('--fail-under <name=min>', 'exit 1 when the mean of this score is below min (repeatable)', collectThreshold)
    .action(
      act(async (ctx, workflow: string, flags: RunFlags) => {
        const body: NewExperimentBody = {
          workflow,
          dataset: flags.dataset,
          ...(flags.datasetVersion !== undefined && { datasetVersion: flags.datasetVersion }),
          ...(flags.version !== undefined && { version: flags.version }),
          ...(flags.name !== undefined && { name: flags.name }),
          ...(flags.parameters !== undefined && { parameters: parseJsonObjectArgument('--parameters', flags.parameters, ctx.readText) }),
          ...(flags.evaluators !== undefined && {
            evaluators: parseJsonArgument('--evaluators', flags.evaluators, ctx.readText) as NewExperimentBody['evaluators'],
          }),
          ...(flags.maxCost !== undefined && { maxCostUsd: Number(flags.maxCost) }),
          concurrency: flags.concurrency ?? 4,
        };
        let experiment = await ctx.client.experiments.start(body);
        if (!ctx.json) ctx.note(`spindle: experiment ${experiment.experimentId} started: ${experiment.summary.items} item(s)`);
        if (flags.wait) experiment = await ended(ctx, experiment);
        return report(ctx, experiment, flags.failUnder ?? []);
      }),
    );
  experiments
    .command('list')
    .description("the tenant's experiments, newest first")
    .action(
      act(async (ctx) => {
        const { experiments: list } = await ctx.client.experiments.list();
        if (ctx.json) return printed(ctx, { experiments: list });
        experimentTable(list).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );
  experiments
    .command('show <experimentId>')
    .description('an experiment, its summary and its items')
    .action(
      act(async (ctx, id: string) => {
        const [experiment, { items }] = await Promise.all([ctx.client.experiments.get(id), ctx.client.experiments.items(id)]);
        if (ctx.json) return printed(ctx, { experiment, items });
        headline(ctx, experiment);
        ctx.print('');
        experimentItemTable(items).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );
  experiments
    .command('compare <experimentIds...>')
    .description('two or more experiments over one dataset, item by item (--csv for a spreadsheet)')
    .option('--csv', 'print CSV: an item a row, columns per experiment')
    .action(
      act(async (ctx, ids: string[], opts: { csv?: boolean }) => {
        if (opts.csv) {
          ctx.stdout.write(await ctx.client.experiments.compareCsv(ids));
          return ExitCode.ok;
        }
        const comparison = await ctx.client.experiments.compare(ids);
        if (ctx.json) return printed(ctx, comparison);
        for (const experiment of comparison.experiments) headline(ctx, experiment);
        ctx.print('');
        experimentComparisonTable(comparison).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );
  experiments
    .command('cancel <experimentId>')
    .description('start no more of its items')
    .action(
      act(async (ctx, id: string) => {
        const experiment = await ctx.client.experiments.cancel(id);
        if (ctx.json) return printed(ctx, experiment);
        headline(ctx, experiment);
        return ExitCode.ok;
      }),
    );
}

async function ended(ctx: CliContext, experiment: Experiment): Promise<Experiment> {
  let current = experiment;
  while (current.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    current = await ctx.client.experiments.get(experiment.experimentId);
  }
  return current;
}

function report(ctx: CliContext, experiment: Experiment, thresholds: readonly ScoreThreshold[]): ExitCode {
  const failures = experiment.status === 'running' ? [] : thresholdFailures(experiment.summary, thresholds);
  if (ctx.json) printed(ctx, { experiment, failures });
  else headline(ctx, experiment);
  for (const failure of failures) ctx.note(`spindle: below the threshold: ${failure}`);
  return failures.length > 0 ? ExitCode.failed : ExitCode.ok;
}

function headline(ctx: CliContext, e: Experiment): void {
  const label = e.name ? ` "${e.name}"` : '';
  ctx.print(
    `${e.experimentId}${label}  ${e.status}  ${e.workflow.name} v${e.workflow.version} over ${e.dataset.name} v${e.dataset.version}`,
  );
  summaryLines(e.summary).forEach((line) => ctx.print(`  ${line}`));
}
