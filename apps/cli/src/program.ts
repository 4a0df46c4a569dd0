import { Command, CommanderError } from 'commander';
import type { CliIo } from './cli-context';
import { addCatalogCommands } from './commands/catalog.commands';
import { addCapabilityCommands } from './commands/capabilities.commands';
import { actWith } from './commands/act';
import { addDeployCommand } from './commands/deploy.commands';
import { addRequestCommands } from './commands/requests.commands';
import { addRunCommands } from './commands/run.commands';
import { addScheduleCommands } from './commands/schedules.commands';
import { addThreadCommands } from './commands/threads.commands';
import { addDatasetCommands } from './commands/datasets.commands';
import { addExperimentCommands } from './commands/experiments.commands';
import { addReplayCommands } from './commands/replays.commands';
import { addWebhookCommands } from './commands/webhooks.commands';
import { DEFAULT_GATEWAY_URL } from './cli-config';
import { EXIT_CODES_HELP, ExitCode } from './exit-codes';

const ENVIRONMENT_HELP = [
  'Environment:',
  `  SPINDLE_URL    the gateway (default ${DEFAULT_GATEWAY_URL}); --url wins`,
  '  SPINDLE_TOKEN  an API key or access token; --token wins. Without either, the nearest',
  '                 .spindle/admin-key (the key `npm start` keeps) is used.',
].join('\n');

/** The `spindle` program: global flags, every command, help with exit codes and environment. */
export function buildProgram(io: CliIo, setExitCode: (code: ExitCode) => void): Command {
  const program = new Command('spindle')
    .description('Spindle from the command line: workflows, agents, runs, traces, events and requests')
    .option('--url <url>', 'the gateway (default: SPINDLE_URL, else the local gateway)')
    .option('--token <token>', 'an API key or access token (default: SPINDLE_TOKEN, else .spindle/admin-key)')
    .option('--json', 'machine-readable output: JSON answers, NDJSON events')
    .showHelpAfterError('(run `spindle --help` for usage)')
    .addHelpText('after', `\n${EXIT_CODES_HELP}\n\n${ENVIRONMENT_HELP}`)
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride();
  const act = actWith(io, setExitCode);
  addCatalogCommands(program, act);
  addDeployCommand(program, act);
  addCapabilityCommands(program, act);
  addRunCommands(program, act);
  addRequestCommands(program, act);
  addThreadCommands(program, act);
  addDatasetCommands(program, act);
  addExperimentCommands(program, act);
  addReplayCommands(program, act);
  addScheduleCommands(program, act);
  addWebhookCommands(program, act);
  // Subcommands throw instead of exiting too, so every exit goes through runCli.
  const overrideAll = (command: Command) => command.commands.forEach((c) => overrideAll(c.exitOverride()));
  overrideAll(program);
  return program;
}

/** Runs one command line (`argv` as `process.argv`) and answers the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  let exitCode: ExitCode = ExitCode.ok;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    // Commander has printed its message (an unknown option, a missing argument) or the help.
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    throw error;
  }
  return exitCode;
}
