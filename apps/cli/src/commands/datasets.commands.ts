import { MAX_ITEMS_PER_REQUEST } from '@spindle/contracts';
import type { Command } from 'commander';
import { datasetItemTable, datasetTable } from '../control-tables';
import { parseDatasetFile } from '../dataset-file';
import { ExitCode } from '../exit-codes';
import { UsageError } from '../usage-error';
import { printed, type Act } from './act';
import { wholeNumber } from './option-parsers';

/** `spindle datasets list|put|add|add-runs|items|remove-item`: versioned items to run a workflow over and judge. */
export function addDatasetCommands(program: Command, act: Act): void {
  const datasets = program.command('datasets').description('datasets: versioned inputs with the outputs expected of them');
  datasets
    .command('list')
    .description("the tenant's datasets: latest version and items")
    .action(
      act(async (ctx) => {
        const { datasets: list } = await ctx.client.datasets.list();
        if (ctx.json) return printed(ctx, { datasets: list });
        datasetTable(list).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );
  datasets
    .command('put <name>')
    .description('create a dataset, or change its description')
    .option('--description <text>', 'what it is for')
    .action(
      act(async (ctx, name: string, opts: { description?: string }) => {
        const dataset = await ctx.client.datasets.put(name, opts.description === undefined ? {} : { description: opts.description });
        if (ctx.json) return printed(ctx, dataset);
        ctx.print(`${dataset.name}: version ${dataset.version}, ${dataset.items} item(s)`);
        return ExitCode.ok;
      }),
    );
  datasets
    .command('add <name> <file>')
    .description(`add the items of a .jsonl or .csv file (- for standard input as JSON Lines), ${MAX_ITEMS_PER_REQUEST} a version`)
    .action(
      act(async (ctx, name: string, file: string) => {
        const items = parseDatasetFile(file === '-' ? '-.jsonl' : file, ctx.readText(file));
        if (items.length === 0) throw new UsageError(`${file} holds no items`);
        const versions: number[] = [];
        for (let i = 0; i < items.length; i += MAX_ITEMS_PER_REQUEST) {
          versions.push((await ctx.client.datasets.addItems(name, { items: items.slice(i, i + MAX_ITEMS_PER_REQUEST) })).version);
        }
        if (ctx.json) return printed(ctx, { items: items.length, versions });
        ctx.print(`${name}: ${items.length} item(s) added, now version ${versions.at(-1)}`);
        return ExitCode.ok;
      }),
    );
  datasets
    .command('add-runs <name> <runIds...>')
    .description("add runs' inputs as items (with --with-output, their outputs as the expected ones)")
    .option('--with-output', 'take each run’s output as the item’s expected output (the runs must have completed)')
    .action(
      act(async (ctx, name: string, runIds: string[], opts: { withOutput?: boolean }) => {
        const added = await ctx.client.datasets.addItems(name, {
          fromRuns: runIds.map((runId) => ({ runId, withOutput: opts.withOutput === true })),
        });
        if (ctx.json) return printed(ctx, added);
        ctx.print(`${name}: ${added.itemIds.length} item(s) from runs added, now version ${added.version}`);
        return ExitCode.ok;
      }),
    );
  datasets
    .command('items <name>')
    .description("a version's items (the latest by default)")
    .option('--version <n>', 'this version', wholeNumber)
    .action(
      act(async (ctx, name: string, opts: { version?: number }) => {
        const all = [];
        let cursor: string | undefined;
        let version = opts.version;
        do {
          const page = await ctx.client.datasets.items(name, { version, limit: 200, cursor });
          all.push(...page.items);
          version = page.version;
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        if (ctx.json) return printed(ctx, { version, items: all });
        ctx.print(`${name} version ${version}: ${all.length} item(s)`);
        datasetItemTable(all).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );
  datasets
    .command('remove-item <name> <itemId>')
    .description('remove an item from the next version on (earlier versions keep it)')
    .action(
      act(async (ctx, name: string, itemId: string) => {
        const { version } = await ctx.client.datasets.removeItem(name, itemId);
        if (ctx.json) return printed(ctx, { version });
        ctx.print(`${name}: ${itemId} removed, now version ${version}`);
        return ExitCode.ok;
      }),
    );
}
