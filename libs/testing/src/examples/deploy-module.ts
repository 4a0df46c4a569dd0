import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** Saves the workflows a module builds in code; throws with what the CLI printed when it exits non-zero. */
export type DeployModule = (path: string) => Promise<void>;

/** The `spindle` binary of this repository (needs a build). */
export const CLI_BIN = resolve(__dirname, '../../../../apps/cli/bin/spindle.js');

/** `spindle deploy <path>` as a user runs it: the built CLI, as a process, against `url` with `token`. */
export function cliDeployer(gateway: { url: string; token: string }): DeployModule {
  return (path) =>
    new Promise((done, fail) => {
      const env = { PATH: process.env.PATH ?? '', SPINDLE_URL: gateway.url, SPINDLE_TOKEN: gateway.token };
      const child = spawn(process.execPath, [CLI_BIN, 'deploy', path], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', fail);
      child.on('close', (code) => (code === 0 ? done() : fail(new Error(`spindle deploy ${path} exited ${code}: ${output.trim()}`))));
    });
}
