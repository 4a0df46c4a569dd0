import type { Command } from 'commander';
import type { HumanRequest } from '@spindle/contracts';
import { answerBodyFor, answerHint } from '../answer-body';
import type { CliContext } from '../cli-context';
import { ExitCode } from '../exit-codes';
import { parseJsonArgument, parseJsonObjectArgument } from '../json-argument';
import { briefJson } from '../json-brief';
import { formatTable } from '../text-table';
import { printed, type Act } from './act';
import { wholeNumber } from './option-parsers';

interface AnswerOptions {
  run?: string;
  approve?: boolean;
  reject?: boolean;
  text?: string;
  data?: string;
  comment?: string;
  message?: string;
  json?: string;
  as?: string;
}

/** `spindle requests list|answer`: what people are asked (inputs, tool approvals) and answering it. */
export function addRequestCommands(program: Command, act: Act): void {
  const requests = program.command('requests').description('requests for a person: human-node inputs and tool approvals');
  requests
    .command('list')
    .description('the inbox across runs, oldest first')
    .option('--status <status>', 'pending, answered, timed_out or canceled', 'pending')
    .option('--limit <n>', 'at most this many (1 to 200)', wholeNumber)
    .option('--cursor <cursor>', 'the next page, from a previous answer')
    .action(
      act(async (ctx, opts: { status?: never; limit?: number; cursor?: string }) => {
        const page = await ctx.client.requests.list(opts);
        if (ctx.json) return printed(ctx, page);
        const rows = page.requests.map((r) => [
          r.requestId,
          r.kind,
          r.runId,
          `${r.workflow}/${r.nodeId}`,
          r.status,
          `${Math.round(r.ageMs / 1000)} s`,
          asks(r),
        ]);
        formatTable(
          [
            { header: 'request' },
            { header: 'kind' },
            { header: 'run' },
            { header: 'node' },
            { header: 'status' },
            { header: 'age', align: 'right' },
            { header: 'asks' },
          ],
          rows,
        ).forEach(ctx.print);
        if (page.nextCursor) ctx.note(`more: spindle requests list --cursor ${page.nextCursor}`);
        return ExitCode.ok;
      }),
    );
  requests
    .command('answer <request>')
    .description(
      [
        'answer a request with the flags its kind takes:',
        ...(['approval', 'boolean', 'plan_review', 'text', 'json'] as const).map((k) => `  ${k}: ${answerHint(k)}`),
      ].join('\n'),
    )
    .option('--run <run>', "the request's run (else it is looked up among pending requests)")
    .option('--approve', 'yes: approve the tool call, the question or the plan')
    .option('--reject', 'no')
    .option('--text <text>', "a text form's answer, or a rejected plan's revision")
    .option('--data <json>', 'a JSON answer for a json form: JSON, or @file.json')
    .option('--comment <text>', 'a note kept with any decision (a tool approval shows it to the model)')
    .option('--message <text>', 'the same as --comment')
    .option('--json <body>', 'the whole answer body as JSON, or @file.json')
    .option('--as <person>', 'the person you answer for (recorded as respondedBy)')
    .action(
      act(async (ctx, requestId: string, opts: AnswerOptions) => {
        const request = await findRequest(ctx, requestId, opts.run);
        const body = answerBodyFor(request, {
          approve: opts.approve,
          reject: opts.reject,
          text: opts.text,
          data: opts.data === undefined ? undefined : parseJsonArgument('--data', opts.data, ctx.readText),
          comment: opts.comment,
          message: opts.message,
          json: opts.json === undefined ? undefined : parseJsonObjectArgument('--json', opts.json, ctx.readText),
          as: opts.as,
        });
        const outcome = await ctx.client.requests.answer(request.runId, request.requestId, body);
        if (ctx.json) return printed(ctx, outcome);
        ctx.print(
          outcome.status === 'recorded'
            ? `${outcome.requestId} answered; run ${outcome.runId} resumes`
            : `${outcome.requestId} already had this answer; nothing changed`,
        );
        return ExitCode.ok;
      }),
    );
}

/** What the request asks: its prompt, or the tool call awaiting approval. */
function asks(request: HumanRequest): string {
  if (request.call) return `${request.call.name} ${briefJson(request.call.arguments, 40)}`;
  return `${request.form?.kind ?? 'input'}: ${request.prompt}`.slice(0, 60);
}

/** The request by id: from its run's requests when `--run` names it, else among the pending ones. */
async function findRequest(ctx: CliContext, requestId: string, runId: string | undefined): Promise<HumanRequest> {
  if (runId !== undefined) {
    const found = (await ctx.client.runs.requests(runId)).requests.find((r) => r.requestId === requestId);
    if (!found) throw new Error(`run ${runId} has no request "${requestId}"`);
    return found;
  }
  let cursor: string | undefined;
  do {
    const page = await ctx.client.requests.list({ status: 'pending', limit: 200, cursor });
    const found = page.requests.find((r) => r.requestId === requestId);
    if (found) return found;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  throw new Error(`no pending request "${requestId}"; if it is answered or closed, name its run with --run <run>`);
}
