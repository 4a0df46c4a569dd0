import type { Command } from 'commander';
import { createCliContext, type CliContext, type CliIo, type GlobalFlags } from '../cli-context';
import { ExitCode } from '../exit-codes';
import { reportFailure } from '../failure-report';

/** A command's body: gets the context and commander's arguments, answers the exit code. */
// Commander passes positional arguments, then the command's options, then the command.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CommandBody = (ctx: CliContext, ...args: any[]) => Promise<ExitCode>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Act = (body: CommandBody) => (...args: any[]) => Promise<void>;

/**
 * Wraps command bodies: builds the context from the global flags, and turns a thrown error into
 * its printed report (a problem's title, detail and fields; never a stack trace) and exit code.
 */
export function actWith(io: CliIo, setExitCode: (code: ExitCode) => void): Act {
  return (body) =>
    async (...args) => {
      const command = args[args.length - 1] as Command;
      const ctx = createCliContext(io, command.optsWithGlobals<GlobalFlags>());
      try {
        setExitCode(await body(ctx, ...args.slice(0, -1)));
      } catch (error) {
        const report = reportFailure(error, ctx.config);
        report.lines.forEach((line) => io.stderr.write(`${line}\n`));
        setExitCode(report.exitCode);
      }
    };
}

/** Prints a value as JSON: a command's whole answer under `--json`, or a document (a definition, an export). */
export function printed(ctx: CliContext, value: unknown): ExitCode {
  ctx.printJson(value);
  return ExitCode.ok;
}
