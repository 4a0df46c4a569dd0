import type { RunEvent, RunStatus } from '@spindle/contracts';

/** What `spindle` exits with: scripts branch on these (documented in `spindle --help` and the README). */
export const ExitCode = {
  /** The command did what it was asked; a followed run completed. */
  ok: 0,
  /** A followed run failed, or the gateway refused the request (its problem is printed). */
  failed: 1,
  /** The command line itself is wrong (unknown option, bad JSON in an argument). */
  usage: 2,
  canceled: 3,
  /** A followed run timed out, or was still running or waiting when `--wait-timeout` passed. */
  timedOut: 4,
  /** Nothing answered at the gateway's address. */
  unreachable: 5,
  /** Ctrl-C while following (the shell's 128 + SIGINT); the run itself goes on. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export const EXIT_CODES_HELP = [
  'Exit codes:',
  '    0  completed (a followed run completed, or the command succeeded)',
  '    1  failed (a followed run failed, or the gateway refused the request)',
  '    2  usage error (unknown command or option, unreadable JSON argument)',
  '    3  canceled (a followed run was canceled)',
  '    4  timed out (the run timed out, or was still going when --wait-timeout passed)',
  '    5  gateway unreachable (nothing answered at SPINDLE_URL)',
  '  130  interrupted (Ctrl-C while following; the run goes on)',
].join('\n');

/** The exit code a run's terminal event means; a run failing on its own time limit is a timeout. */
export function exitCodeOfTerminal(event: RunEvent): ExitCode {
  switch (event.type) {
    case 'run.completed':
      return ExitCode.ok;
    case 'run.canceled':
      return ExitCode.canceled;
    case 'run.failed':
      return event.data.error.code === 'run_timeout' ? ExitCode.timedOut : ExitCode.failed;
    default:
      throw new Error(`${event.type} is not a terminal event`);
  }
}

/** The exit code of a run read by status (`runs get`): still going is not an error. */
export function exitCodeOfStatus(status: RunStatus, errorCode?: string): ExitCode {
  if (status === 'failed') return errorCode === 'run_timeout' ? ExitCode.timedOut : ExitCode.failed;
  if (status === 'canceled') return ExitCode.canceled;
  return ExitCode.ok;
}
