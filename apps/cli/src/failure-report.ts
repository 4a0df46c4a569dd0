import { isSpindleApiError, type SpindleApiError } from '@spindle/client';
import type { CliConfig } from './cli-config';
import { ExitCode } from './exit-codes';

/** What the CLI prints for an error instead of a stack trace, and the exit code it means. */
export interface FailureReport {
  lines: string[];
  exitCode: ExitCode;
}

/** Classifies by `code` (the client's and the CLI's errors carry one), never by class. */
export function reportFailure(error: unknown, config: Pick<CliConfig, 'baseUrl' | 'urlSource' | 'token'>): FailureReport {
  if (isSpindleApiError(error)) return { lines: problemLines(error, config), exitCode: ExitCode.failed };
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'unreachable') return { lines: unreachableLines(config), exitCode: ExitCode.unreachable };
  if (code === 'usage') return { lines: [`spindle: ${message}`, 'Run `spindle --help` for usage.'], exitCode: ExitCode.usage };
  return { lines: [`spindle: ${message}`], exitCode: ExitCode.failed };
}

/** A gateway's problem: its title, status and code, its detail, and each field at fault. */
function problemLines(problem: SpindleApiError, config: Pick<CliConfig, 'token'>): string[] {
  const lines = [`spindle: ${problem.title} (${problem.status} ${problem.code})`];
  if (problem.detail) lines.push(`  ${problem.detail}`);
  for (const issue of problem.errors) lines.push(`  - ${issue.node ? `${issue.node}: ` : ''}${issue.field}: ${issue.message}`);
  if (problem.retryAfterSec !== undefined) lines.push(`  retry after ${problem.retryAfterSec} s`);
  if (problem.code === 'unauthenticated')
    lines.push(
      config.token === undefined
        ? '  No credentials were sent: set SPINDLE_TOKEN or pass --token (`npm start` keeps the first admin key in .spindle/admin-key).'
        : '  The key or token sent was refused: check SPINDLE_TOKEN / --token (`npm run keys -- create --name me` makes a new key).',
    );
  return lines;
}

function unreachableLines(config: Pick<CliConfig, 'baseUrl' | 'urlSource'>): string[] {
  const where =
    config.urlSource === 'default' ? 'the default address; set SPINDLE_URL or --url to use another' : `from ${config.urlSource}`;
  return [
    `spindle: no Spindle gateway answered at ${config.baseUrl} (${where}).`,
    '  Start one from the repository with `npm start` (it needs NATS and PostgreSQL; see the README Quickstart),',
    '  or point SPINDLE_URL at a running gateway.',
  ];
}
