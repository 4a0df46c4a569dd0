import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { checkWebhookSignature, WEBHOOK_EVENT_TYPES, type WebhookEvent, type WebhookEventType } from '@spindle/contracts';
import type { CliContext } from '../cli-context';
import { deliveryLines, receivedLine, webhookTable } from '../control-tables';
import { ExitCode } from '../exit-codes';
import { UsageError } from '../usage-error';
import { printed, type Act } from './act';
import { wholeNumber } from './option-parsers';

interface ListenFlags {
  port?: number;
  events?: string;
  workflow?: string;
  count?: number;
  keep?: boolean;
}

/** `spindle webhooks list|show|deliveries|listen`: subscriptions, their deliveries, and a receiver to try one locally. */
export function addWebhookCommands(program: Command, act: Act): void {
  const webhooks = program.command('webhooks').description('webhooks: run events POSTed, signed, to a URL');
  webhooks
    .command('list')
    .description('subscriptions: url, events and which runs')
    .action(
      act(async (ctx) => {
        const list = await ctx.client.webhooks.list();
        if (ctx.json) return printed(ctx, list);
        webhookTable(list.webhooks).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );
  webhooks
    .command('show <webhookId>')
    .description('a subscription and its latest deliveries, each with its attempts')
    .action(act(async (ctx, webhookId: string) => showDeliveries(ctx, webhookId, 20, true)));
  webhooks
    .command('deliveries <webhookId>')
    .description("a subscription's deliveries, newest first: status, and each attempt's answer or error")
    .option('--limit <n>', 'at most this many', wholeNumber)
    .action(act(async (ctx, webhookId: string, opts: { limit?: number }) => showDeliveries(ctx, webhookId, opts.limit, false)));
  webhooks
    .command('listen')
    .description(
      'receive deliveries here: a receiver on 127.0.0.1 subscribed for as long as it runs (Ctrl-C ends it and deletes the subscription). ' +
        'The gateway must allow http to 127.0.0.1, as `npm start` does (SPINDLE_WEBHOOK_ALLOW_HTTP, SPINDLE_WEBHOOK_ALLOWED_HOSTS)',
    )
    .option('--port <n>', 'the port to listen on (default: any free one)', wholeNumber)
    .option('--events <types>', `comma-separated, of ${WEBHOOK_EVENT_TYPES.join(', ')} (default: all)`)
    .option('--workflow <name>', "only this workflow's runs")
    .option('--count <n>', 'end after this many deliveries', wholeNumber)
    .option('--keep', 'keep the subscription when it ends')
    .action(act(async (ctx, opts: ListenFlags) => listen(ctx, opts)));
}

async function showDeliveries(ctx: CliContext, webhookId: string, limit: number | undefined, withWebhook: boolean): Promise<ExitCode> {
  const [webhook, page] = await Promise.all([
    withWebhook ? ctx.client.webhooks.get(webhookId) : undefined,
    ctx.client.webhooks.deliveries(webhookId, { limit }),
  ]);
  if (ctx.json) return printed(ctx, webhook ? { webhook, ...page } : page);
  if (webhook) {
    webhookTable([webhook]).forEach(ctx.print);
    ctx.print('');
  }
  deliveryLines(page.deliveries).forEach(ctx.print);
  if (page.nextCursor) ctx.note(`spindle: more deliveries; the API pages them with ?cursor=${page.nextCursor}`);
  return ExitCode.ok;
}

function eventTypes(text: string | undefined): WebhookEventType[] | undefined {
  if (text === undefined) return undefined;
  const asked = text.split(',').map((t) => t.trim());
  const unknown = asked.filter((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) throw new UsageError(`--events: unknown ${unknown.join(', ')} (one of ${WEBHOOK_EVENT_TYPES.join(', ')})`);
  return asked as WebhookEventType[];
}

async function listen(ctx: CliContext, opts: ListenFlags): Promise<ExitCode> {
  const events = eventTypes(opts.events);
  let received = 0;
  let stop: (code: ExitCode) => void = () => undefined;
  const ended = new Promise<ExitCode>((resolve) => (stop = resolve));
  // A delivery can arrive before the subscription's answer (with its secret) has: it waits for it.
  let knowSecret: (secret: string) => void = () => undefined;
  const secret = new Promise<string>((resolve) => (knowSecret = resolve));
  const server = createServer((req, res) => {
    void Promise.all([readBody(req), secret]).then(([text, key]) => {
      const check = checkWebhookSignature(key, text, req.headers['spindle-signature'], Math.floor(Date.now() / 1_000));
      // A receiver refuses what it cannot trust; the gateway retries it and its deliveries show the 401.
      res.writeHead(check.ok ? 200 : 401, { 'content-type': 'text/plain' }).end(check.ok ? 'received\n' : `signature ${check.reason}\n`);
      let event: WebhookEvent;
      try {
        event = JSON.parse(text) as WebhookEvent;
      } catch {
        return ctx.note(`spindle: a POST that is not JSON (${text.length} bytes), signature ${check.ok ? 'valid' : check.reason}`);
      }
      if (ctx.json) ctx.stdout.write(`${JSON.stringify(event)}\n`);
      else ctx.print(receivedLine(event, check));
      if (!check.ok) return ctx.note(`spindle: refused (401) a delivery: Spindle-Signature ${check.reason.replace('_', ' ')}`);
      received += 1;
      if (opts.count !== undefined && received >= opts.count) stop(ExitCode.ok);
    });
  });
  const port = await listenOn(server, opts.port ?? 0);
  const url = `http://127.0.0.1:${port}/spindle-webhook`;
  const onInterrupt = () => stop(ExitCode.ok);
  try {
    const webhook = await ctx.client.webhooks.create({ url, events, workflow: opts.workflow });
    knowSecret(webhook.secret);
    ctx.note(
      `spindle: listening on ${url} as webhook ${webhook.webhookId} (secret ${webhook.secret}); ` +
        'each delivery is checked against its Spindle-Signature; Ctrl-C to end',
    );
    process.once('SIGINT', onInterrupt);
    const code = await ended;
    if (!opts.keep) await ctx.client.webhooks.delete(webhook.webhookId);
    else ctx.note(`spindle: webhook ${webhook.webhookId} kept; delete it with DELETE /v1/webhooks/${webhook.webhookId}`);
    return code;
  } finally {
    process.removeListener('SIGINT', onInterrupt);
    server.close();
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
  });
}

function listenOn(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(new UsageError(`--port: cannot listen on 127.0.0.1:${port}: ${e.code ?? e.message}`)),
    );
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}
