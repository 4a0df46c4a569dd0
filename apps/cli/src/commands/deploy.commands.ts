import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { ExitCode } from '../exit-codes';
import { parseJsonFile } from '../json-argument';
import { UsageError } from '../usage-error';
import { isWorkflowModule, loadWorkflowModule, MODULE_EXTENSIONS, WorkflowModuleError } from '../workflow-module';
import { printed, type Act } from './act';

/** `spindle deploy <file…>`: saves every workflow the modules export, each under its own name. */
export function addDeployCommand(program: Command, act: Act): void {
  program
    .command('deploy <files...>')
    .description(
      `save every workflow built with @spindle/sdk that the modules export (${MODULE_EXTENSIONS.join(' ')}), each under its name`,
    )
    .option('--definition-only', DEFINITION_ONLY)
    .action(
      act(async (ctx, files: string[], opts: SaveFlags) => {
        const modules = [];
        // Every module loads before anything is saved: one that throws or exports nothing saves nothing.
        for (const file of files) {
          if (!isWorkflowModule(file))
            throw new UsageError(
              `${file}: deploy takes modules (${MODULE_EXTENSIONS.join(' ')}); save a JSON definition with workflows put`,
            );
          modules.push({ file, workflows: await loadWorkflowModule(file, ctx.cwd) });
        }
        const saved = [];
        for (const { file, workflows } of modules)
          for (const { name, definition } of workflows) saved.push(await deployOne(ctx, name, definition, file, opts));
        return ctx.json ? printed(ctx, { workflows: saved }) : ExitCode.ok;
      }),
    );
}

/**
 * What `workflows put <name> <file>` saves: a JSON file (or standard input), or the one workflow a
 * module exports (of several, the one named `name`).
 */
export async function definitionFromFile(ctx: CliContext, name: string, file: string): Promise<unknown> {
  if (!isWorkflowModule(file)) return parseJsonFile(file, ctx.readText);
  const workflows = await loadWorkflowModule(file, ctx.cwd);
  if (workflows.length === 1) return workflows[0].definition;
  const named = workflows.find((w) => w.name === name);
  if (named) return named.definition;
  throw new WorkflowModuleError(
    `${file} exports ${workflows.length} workflows (${workflows.map((w) => w.name).join(', ')}) and none is named "${name}": ` +
      'name one, or save them all with spindle deploy',
  );
}

/** `--definition-only`: the gateway checks the definition, not what the live runners carry. */
export interface SaveFlags {
  definitionOnly?: boolean;
}
export const DEFINITION_ONLY =
  "check the definition only, not against the live runners' functions, tools and ceiling (to save before the runner is deployed)";

/** Saves one definition and prints what happened. */
export async function saveDefinition(ctx: CliContext, name: string, definition: unknown, flags: SaveFlags = {}) {
  const saved = await ctx.client.workflows.put(name, definition, { check: flags.definitionOnly ? 'definition-only' : undefined });
  if (!ctx.json)
    ctx.print(`${saved.name} v${saved.version} ${saved.created ? 'saved' : 'unchanged (the same definition is already stored)'}`);
  return saved;
}

/** One of several: a refusal says which workflow it was before the gateway's problem. */
async function deployOne(ctx: CliContext, name: string, definition: unknown, file: string, flags: SaveFlags) {
  try {
    return await saveDefinition(ctx, name, definition, flags);
  } catch (error) {
    ctx.note(`spindle: workflow "${name}" from ${file} was not saved:`);
    throw error;
  }
}
