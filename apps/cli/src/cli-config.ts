import { dirname, join } from 'node:path';

/** Where the gateway listens unless told otherwise: `npm start`'s gateway on this machine. */
export const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';
/** The first admin key `npm start` keeps, relative to the repository (or any folder above the working one). */
export const ADMIN_KEY_FILE = join('.spindle', 'admin-key');

export interface CliConfig {
  readonly baseUrl: string;
  /** Where `baseUrl` came from, so an unreachable gateway can say where it looked. */
  readonly urlSource: '--url' | 'SPINDLE_URL' | 'default';
  readonly token?: string;
  readonly tokenSource?: '--token' | 'SPINDLE_TOKEN' | string;
}

export interface ConfigSources {
  flags: { url?: string; token?: string };
  env: Record<string, string | undefined>;
  cwd: string;
  /** Reads a file's text, or undefined when there is none. */
  readText(path: string): string | undefined;
}

/** Flags win over the environment; without a token, the nearest `.spindle/admin-key` above `cwd` is used. */
export function resolveCliConfig({ flags, env, cwd, readText }: ConfigSources): CliConfig {
  const url = flags.url ?? nonEmpty(env.SPINDLE_URL);
  const urlSource = flags.url !== undefined ? '--url' : url !== undefined ? 'SPINDLE_URL' : 'default';
  const baseUrl = (url ?? DEFAULT_GATEWAY_URL).replace(/\/+$/, '');
  if (flags.token !== undefined) return Object.freeze({ baseUrl, urlSource, token: flags.token, tokenSource: '--token' });
  const envToken = nonEmpty(env.SPINDLE_TOKEN);
  if (envToken !== undefined) return Object.freeze({ baseUrl, urlSource, token: envToken, tokenSource: 'SPINDLE_TOKEN' });
  for (let dir = cwd; ; dir = dirname(dir)) {
    const file = join(dir, ADMIN_KEY_FILE);
    const key = nonEmpty(readText(file)?.trim());
    if (key !== undefined) return Object.freeze({ baseUrl, urlSource, token: key, tokenSource: file });
    if (dirname(dir) === dir) return Object.freeze({ baseUrl, urlSource });
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
