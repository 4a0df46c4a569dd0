import type { Command } from 'commander';
import type { FilePartInput } from '@spindle/contracts';
import type { CliContext } from '../cli-context';
import { eventLines } from '../event-line';
import { ExitCode, exitCodeOfStatus } from '../exit-codes';
import { followRun } from '../follow-run';
import { parseJsonArgument, parseJsonObjectArgument } from '../json-argument';
import { runDetail, runTable } from '../run-tables';
import { traceTable } from '../trace-table';
import { printed, type Act } from './act';
import { seconds, wholeNumber } from './option-parsers';
import { checkInputTakesFiles, collectPaths, fileUploadOf, inputWithFiles } from '../file-attachments';

interface FollowFlags {
  follow?: boolean;
  waitTimeout?: number;
}

/** `spindle run`, `runs list|get|cancel|fork`, `trace`, `events` and `export`. */
export function addRunCommands(program: Command, act: Act): void {
  program
    .command('run <workflow>')
    .description('start a run; with --follow, watch it to its end (a live tree on a terminal) and exit with how it ended')
    .option('-i, --input <json>', 'the run input: JSON, or @file.json')
    .option('--state <json>', 'initial state keys: a JSON object, or @file.json')
    .option('-p, --parameters <json>', "the run's parameters (checked against the workflow's): a JSON object, or @file.json")
    .option('--file <path>', 'upload a file and add it to the input under "files" (repeatable)', collectPaths)
    .option('--version <n>', 'a catalog version of the workflow (default: the latest)', wholeNumber)
    .option('--idempotency-key <key>', 'a retried start with the same key answers with the first run')
    .option('-f, --follow', 'follow the run until it ends')
    .option('--wait-timeout <seconds>', 'with --follow: stop waiting after this long (exit 4)', seconds)
    .action(
      act(
        async (
          ctx,
          workflow: string,
          opts: FollowFlags & {
            input?: string;
            state?: string;
            parameters?: string;
            version?: number;
            idempotencyKey?: string;
            file?: string[];
          },
        ) => {
          const input = opts.input === undefined ? undefined : parseJsonArgument('--input', opts.input, ctx.readText);
          const accepted = await ctx.client.runs.start(workflow, {
            input: opts.file?.length ? inputWithFiles(input, await uploadFiles(ctx, input, opts.file)) : input,
            state: opts.state === undefined ? undefined : parseJsonObjectArgument('--state', opts.state, ctx.readText),
            parameters: opts.parameters === undefined ? undefined : parseJsonObjectArgument('--parameters', opts.parameters, ctx.readText),
            version: opts.version,
            idempotencyKey: opts.idempotencyKey,
          });
          return started(ctx, accepted.runId, accepted, opts);
        },
      ),
    );

  const runs = program.command('runs').description('runs: list, read, cancel, fork');
  runs
    .command('list')
    .description('runs, newest first')
    .option('--status <status>', 'queued, running, awaiting_input, awaiting_approval, completed, failed or canceled')
    .option('--workflow <name>', 'runs of this workflow')
    .option('--limit <n>', 'at most this many (1 to 200)', wholeNumber)
    .option('--cursor <cursor>', 'the next page, from a previous answer')
    .action(
      act(async (ctx, opts: { status?: never; workflow?: string; limit?: number; cursor?: string }) => {
        const page = await ctx.client.runs.list(opts);
        if (ctx.json) return printed(ctx, page);
        runTable(page.runs).forEach(ctx.print);
        if (page.nextCursor) ctx.note(`more: spindle runs list --cursor ${page.nextCursor}`);
        return ExitCode.ok;
      }),
    );
  runs
    .command('get <run>')
    .description("a run's status, timings and usage (exits 1 failed, 3 canceled, 4 timed out)")
    .action(
      act(async (ctx, runId: string) => {
        const run = await ctx.client.runs.get(runId);
        if (ctx.json) ctx.printJson(run);
        else runDetail(run).forEach(ctx.print);
        return exitCodeOfStatus(run.status, run.error?.code);
      }),
    );
  runs
    .command('cancel <run>')
    .description('cancel a run (a waiting run is closed with its open requests)')
    .option('--reason <text>', 'recorded in run.canceled')
    .action(
      act(async (ctx, runId: string, opts: { reason?: string }) => {
        const outcome = await ctx.client.runs.cancel(runId, { reason: opts.reason });
        if (ctx.json) return printed(ctx, outcome);
        ctx.print(`${outcome.runId} ${outcome.status === 'canceled' ? 'canceled' : 'cancel requested (its runner is stopping it)'}`);
        return ExitCode.ok;
      }),
    );
  runs
    .command('fork <run>')
    .description("a new run from one of the run's checkpoints (default: the latest), with a state patch")
    .option('--checkpoint <id>', 'the checkpoint to start from')
    .option('--state <json>', 'state keys to change: a JSON object, or @file.json')
    .option('--idempotency-key <key>', 'a retried fork with the same key answers with the first fork')
    .option('-f, --follow', 'follow the new run until it ends')
    .option('--wait-timeout <seconds>', 'with --follow: stop waiting after this long (exit 4)', seconds)
    .action(
      act(async (ctx, runId: string, opts: FollowFlags & { checkpoint?: string; state?: string; idempotencyKey?: string }) => {
        const state = opts.state === undefined ? undefined : parseJsonObjectArgument('--state', opts.state, ctx.readText);
        const forked = await ctx.client.runs.fork(runId, { checkpointId: opts.checkpoint, state }, { idempotencyKey: opts.idempotencyKey });
        return started(ctx, forked.runId, forked, opts);
      }),
    );

  program
    .command('trace <run>')
    .description("the run's trace as a table: every span (run, node, model, tool, request) in log order, then the run's scores")
    .action(
      act(async (ctx, runId: string) => {
        const trace = await ctx.client.runs.trace(runId);
        if (ctx.json) return printed(ctx, trace);
        traceTable(trace).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );

  program
    .command('events <run>')
    .description("the run's events, one line each (NDJSON with --json); --follow waits for the rest and exits with how the run ended")
    .option('--after <seq>', 'only events after this seq', wholeNumber)
    .option('-f, --follow', 'keep following until the run ends')
    .option('--wait-timeout <seconds>', 'with --follow: stop waiting after this long (exit 4)', seconds)
    .action(
      act(async (ctx, runId: string, opts: FollowFlags & { after?: number }) => {
        if (opts.follow) {
          // Asked first so an unknown run or an unreachable gateway fails at once (a stream would retry).
          await ctx.client.runs.get(runId);
          return followRun(ctx, { runId, after: opts.after, waitTimeoutSec: opts.waitTimeout, tree: false });
        }
        const page = await ctx.client.runs.events(runId, { after: opts.after });
        const line = eventLines();
        for (const event of page.events) ctx.print(ctx.json ? JSON.stringify(event) : line(event));
        return ExitCode.ok;
      }),
    );

  program
    .command('export <run>')
    .description('the run as one JSON document: summary, every event, trace, checkpoints and requests')
    .option('-o, --out <file>', 'write it to this file instead of standard output')
    .action(
      act(async (ctx, runId: string, opts: { out?: string }) => {
        const run = await ctx.client.runs.get(runId);
        const [events, trace, checkpoints, requests] = await Promise.all([
          ctx.client.runs.events(runId),
          ctx.client.runs.trace(runId),
          ctx.client.runs.checkpoints(runId),
          ctx.client.runs.requests(runId),
        ]);
        const document = { run, events: events.events, trace, checkpoints: checkpoints.checkpoints, requests: requests.requests };
        if (opts.out === undefined) return printed(ctx, document);
        ctx.writeFile(opts.out, `${JSON.stringify(document, null, 2)}\n`);
        ctx.note(`spindle: wrote ${events.events.length} events of run ${runId} to ${opts.out}`);
        return ExitCode.ok;
      }),
    );
}

/** After a start or a fork: the run id (the whole answer with --json), or follow it with --follow. */
async function started(ctx: CliContext, runId: string, answer: unknown, opts: FollowFlags): Promise<ExitCode> {
  if (!opts.follow) {
    if (ctx.json) ctx.printJson(answer);
    else ctx.print(runId);
    return ExitCode.ok;
  }
  if (!ctx.json) ctx.note(`spindle: run ${runId}`);
  return followRun(ctx, { runId, waitTimeoutSec: opts.waitTimeout, tree: true });
}

/** Uploads each `--file` (after checking the input can take them), answering their parts in order. */
async function uploadFiles(ctx: CliContext, input: unknown, paths: readonly string[]): Promise<FilePartInput[]> {
  checkInputTakesFiles(input);
  const parts: FilePartInput[] = [];
  for (const path of paths) {
    const { name, contentType } = fileUploadOf(path);
    const file = await ctx.client.files.upload(ctx.readBytes(path), { contentType, name });
    ctx.note(`uploaded ${path} as ${file.fileId} (${file.mediaType}, ${file.bytes} bytes)`);
    parts.push({ type: 'file', fileId: file.fileId, name });
  }
  return parts;
}
