import { exitQuietlyOnBrokenPipe } from './broken-pipe';
import { runCli } from './program';

// `spindle … | head -1`: the reader went away; nothing is left to say to anyone.
for (const stream of [process.stdout, process.stderr]) exitQuietlyOnBrokenPipe(stream, (code) => process.exit(code));

runCli(process.argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`spindle: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
