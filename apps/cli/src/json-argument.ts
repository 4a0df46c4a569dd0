import { UsageError } from './usage-error';

/**
 * A JSON command-line argument: the JSON text itself, or `@path` to read it from a file
 * (`--input @input.json`). Bad JSON or a missing file is a usage error naming the option.
 */
export function parseJsonArgument(option: string, text: string, readText: (path: string) => string): unknown {
  if (text.startsWith('@')) {
    try {
      return parsed(option, readText(text.slice(1)));
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`${option}: cannot read ${text.slice(1)}: ${(e as Error).message}`);
    }
  }
  return parsed(option, text);
}

/** A JSON file named on the command line (`workflows put <name> <file>`): a usage error names the file. */
export function parseJsonFile(path: string, readText: (path: string) => string): unknown {
  let source: string;
  try {
    source = readText(path);
  } catch (e) {
    throw new UsageError(`cannot read ${path === '-' ? 'standard input' : path}: ${(e as Error).message}`);
  }
  return parsed(path === '-' ? 'standard input' : path, source);
}

function parsed(what: string, source: string): unknown {
  try {
    return JSON.parse(source);
  } catch (e) {
    throw new UsageError(`${what} is not valid JSON (${(e as Error).message})`);
  }
}

/** A JSON argument that must be an object (a state patch, an answer body). */
export function parseJsonObjectArgument(option: string, text: string, readText: (path: string) => string): Record<string, unknown> {
  const value = parseJsonArgument(option, text, readText);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${option} must be a JSON object`);
  return value as Record<string, unknown>;
}
