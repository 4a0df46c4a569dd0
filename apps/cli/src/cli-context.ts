import { readFileSync, writeFileSync } from 'node:fs';
import { createSpindleClient, type SpindleClient } from '@spindle/client';
import { resolveCliConfig, type CliConfig } from './cli-config';
import { UsageError } from './usage-error';

/** The process the CLI runs in: its streams, environment and working folder. */
export interface CliIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: Record<string, string | undefined>;
  cwd: string;
}

/** What every command gets: where the gateway is, a client signed in to it, and how to print. */
export interface CliContext {
  config: CliConfig;
  client: SpindleClient;
  /** `--json`: machine-readable output (JSON bodies; NDJSON of events). */
  json: boolean;
  /** Standard output is a terminal: the live tree is drawn in place. */
  tty: boolean;
  stdout: NodeJS.WriteStream;
  /** The working folder relative paths (a workflow module's) are read from. */
  cwd: string;
  print(line: string): void;
  printJson(value: unknown): void;
  /** Notes for a person (progress, hints) go to standard error, so standard output stays parseable. */
  note(line: string): void;
  /** A file's text; `-` is standard input. */
  readText(path: string): string;
  /** A file's bytes (an upload). */
  readBytes(path: string): Uint8Array;
  writeFile(path: string, text: string): void;
}

export interface GlobalFlags {
  url?: string;
  token?: string;
  json?: boolean;
}

export function createCliContext(io: CliIo, flags: GlobalFlags): CliContext {
  const config = resolveCliConfig({ flags, env: io.env, cwd: io.cwd, readText: readIfPresent });
  return {
    config,
    client: createSpindleClient({ baseUrl: config.baseUrl, token: config.token }),
    json: flags.json === true,
    tty: io.stdout.isTTY === true,
    stdout: io.stdout,
    cwd: io.cwd,
    print: (line) => io.stdout.write(`${line}\n`),
    printJson: (value) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    note: (line) => io.stderr.write(`${line}\n`),
    readText: (path) => readFileSync(path === '-' ? 0 : path, 'utf8'),
    readBytes: (path) => {
      try {
        return readFileSync(path);
      } catch (e) {
        throw new UsageError(`--file: cannot read ${path}: ${(e as Error).message}`);
      }
    },
    writeFile: (path, text) => writeFileSync(path, text),
  };
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
