import type { Command } from 'commander';
import type { ListedFunction, ListedTool } from '@spindle/contracts';
import { ExitCode } from '../exit-codes';
import { formatTable } from '../text-table';
import { printed, type Act } from './act';

const LISTINGS = {
  functions: { none: 'no runner has announced any function (is a runner running?)' },
  tools: { none: 'no runner has announced any tool (is a runner with plugins running?)' },
} as const;

/** `spindle functions` and `spindle tools`: what the live runners can run, and which runners have it. */
export function addCapabilityCommands(program: Command, act: Act): void {
  for (const what of ['functions', 'tools'] as const) {
    program
      .command(what)
      .description(`${what} the live runners have: name, plugin and version, runners`)
      .action(
        act(async (ctx) => {
          const listed = what === 'functions' ? (await ctx.client.functions()).functions : (await ctx.client.tools()).tools;
          if (ctx.json) return printed(ctx, { [what]: listed });
          printListing(ctx.print, listed, LISTINGS[what].none);
          return ExitCode.ok;
        }),
      );
  }
}

function printListing(print: (line: string) => void, listed: ReadonlyArray<ListedFunction | ListedTool>, none: string): void {
  if (listed.length === 0) return print(none);
  const rows = listed.map((entry) => [
    entry.name,
    entry.plugin.version ? `${entry.plugin.name}@${entry.plugin.version}` : entry.plugin.name,
    entry.runners.map((r) => r.id).join(', '),
    oneLine(entry.description ?? ''),
  ]);
  formatTable([{ header: 'name' }, { header: 'plugin' }, { header: 'runners' }, { header: 'description' }], rows).forEach(print);
}

/** A table cell is one line: the first line of a description, cut at 80 characters. */
function oneLine(text: string): string {
  const first = text.split('\n')[0] ?? '';
  return first.length > 80 ? `${first.slice(0, 79)}…` : first;
}
