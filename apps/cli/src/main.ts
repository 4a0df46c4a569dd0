import { runCli } from './program';

runCli(process.argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`spindle: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
