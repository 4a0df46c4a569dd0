import type { Command } from 'commander';
import { ExitCode } from '../exit-codes';
import { threadRunTable, threadTable } from '../control-tables';
import { printed, type Act } from './act';
import { wholeNumber } from './option-parsers';

/** `spindle threads list|show|state`: conversations across runs, and the state the next run starts from. */
export function addThreadCommands(program: Command, act: Act): void {
  const threads = program.command('threads').description('threads: runs that share a state, one after another');
  threads
    .command('list')
    .description('threads, newest first: status, runs, and the run their state is from')
    .option('--limit <n>', 'at most this many', wholeNumber)
    .action(
      act(async (ctx, opts: { limit?: number }) => {
        const list = await ctx.client.threads.list({ limit: opts.limit });
        if (ctx.json) return printed(ctx, list);
        threadTable(list.threads).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );
  threads
    .command('show <threadId>')
    .description('a thread and its runs in order')
    .action(
      act(async (ctx, threadId: string) => {
        const [thread, { runs }] = await Promise.all([ctx.client.threads.get(threadId), ctx.client.threads.runs(threadId)]);
        if (ctx.json) return printed(ctx, { thread, runs });
        ctx.print(`${thread.threadId}  ${thread.status}, ${thread.runs} run(s), state from ${thread.stateFromRun ?? 'no run yet'}`);
        if (Object.keys(thread.metadata).length > 0) ctx.print(`  metadata ${JSON.stringify(thread.metadata)}`);
        ctx.print('');
        threadRunTable(runs).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );
  threads
    .command('state <threadId>')
    .description("the thread's state: what its next run starts from (JSON)")
    .action(
      act(async (ctx, threadId: string) => {
        const state = await ctx.client.threads.state(threadId);
        return printed(ctx, ctx.json ? state : state.state);
      }),
    );
}
