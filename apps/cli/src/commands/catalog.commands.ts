import type { Command } from 'commander';
import { ExitCode } from '../exit-codes';
import { parseJsonFile } from '../json-argument';
import { formatTable } from '../text-table';
import { printed, type Act } from './act';
import { DEFINITION_ONLY, definitionFromFile, saveDefinition, type SaveFlags } from './deploy.commands';
import { wholeNumber } from './option-parsers';

/** `spindle workflows put|get|list|graph` and `spindle agents put|list`: the catalog. */
export function addCatalogCommands(program: Command, act: Act): void {
  const workflows = program.command('workflows').description('the workflow catalog');
  workflows
    .command('list')
    .description('workflows with their latest version')
    .action(
      act(async (ctx) => {
        const { workflows: list } = await ctx.client.workflows.list();
        if (ctx.json) return printed(ctx, { workflows: list });
        const rows = list.map((w) => [w.name, String(w.latestVersion), w.updatedAt]);
        formatTable([{ header: 'name' }, { header: 'version', align: 'right' }, { header: 'updated' }], rows).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );
  workflows
    .command('get <name>')
    .description("print a workflow's definition (its latest version unless --version)")
    .option('--version <n>', 'a catalog version', wholeNumber)
    .action(
      act(async (ctx, name: string, opts: { version?: number }) => {
        const stored = await ctx.client.workflows.get(name, { version: opts.version });
        return printed(ctx, ctx.json ? stored : stored.definition);
      }),
    );
  workflows
    .command('put <name> <file>')
    .description(
      'save a definition from a JSON file (- for standard input) or a module built with @spindle/sdk (.ts .mts .js .mjs); ' +
        'a changed one becomes a new version',
    )
    .option('--definition-only', DEFINITION_ONLY)
    .action(
      act(async (ctx, name: string, file: string, opts: SaveFlags) => {
        const saved = await saveDefinition(ctx, name, await definitionFromFile(ctx, name, file), opts);
        return ctx.json ? printed(ctx, saved) : ExitCode.ok;
      }),
    );
  workflows
    .command('graph <name>')
    .description("a workflow's compiled graph: nodes by layout rank and edges (--mermaid for Mermaid text)")
    .option('--version <n>', 'a catalog version', wholeNumber)
    .option('--mermaid', 'print the Mermaid text only')
    .action(
      act(async (ctx, name: string, opts: { version?: number; mermaid?: boolean }) => {
        const graph = await ctx.client.workflows.graph(name, { version: opts.version });
        if (ctx.json) return printed(ctx, graph);
        if (opts.mermaid) {
          ctx.print(graph.mermaid ?? '');
          return ExitCode.ok;
        }
        ctx.print(`${graph.name} v${graph.version}, entry ${graph.entry}`);
        const nodes = graph.nodes.map((n) => [String(n.rank), n.id, n.type, n.parent ?? '', n.lane ?? '']);
        formatTable(
          [{ header: 'rank', align: 'right' }, { header: 'node' }, { header: 'type' }, { header: 'inside' }, { header: 'lane' }],
          nodes,
        ).forEach(ctx.print);
        ctx.print('');
        const edges = graph.edges.map((e) => [e.from, e.to, e.handle, e.back ? 'loop back' : '']);
        formatTable([{ header: 'from' }, { header: 'to' }, { header: 'handle' }, { header: '' }], edges).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );

  const agents = program.command('agents').description('the agent catalog patterns refer to with { "ref": "<name>" }');
  agents
    .command('list')
    .description('agents with their version')
    .action(
      act(async (ctx) => {
        const { agents: list } = await ctx.client.agents.list();
        if (ctx.json) return printed(ctx, { agents: list });
        const rows = list.map((a) => [a.name, String(a.version), String(a.spec.model ?? ''), a.updatedAt]);
        formatTable([{ header: 'name' }, { header: 'version', align: 'right' }, { header: 'model' }, { header: 'updated' }], rows).forEach(
          ctx.print,
        );
        return ExitCode.ok;
      }),
    );
  agents
    .command('put <name> <file>')
    .description("save an agent's spec from a JSON file (- for standard input)")
    .action(
      act(async (ctx, name: string, file: string) => {
        const saved = await ctx.client.agents.put(name, parseJsonFile(file, ctx.readText));
        if (ctx.json) return printed(ctx, saved);
        ctx.print(`${saved.name} v${saved.version} ${saved.created ? 'saved' : 'unchanged (the same spec is already stored)'}`);
        return ExitCode.ok;
      }),
    );
}
