/**
 * Members whose values differ on every run: ids, times, durations, ages, the worker's name. The
 * README's value of one is matched by type (a time by ISO-8601 form), and an id or time the README
 * shows stands for the value the real answer had: shown again, later (in an answer or a command),
 * it must be, and is replaced by, that same value.
 */
export const VOLATILE_MEMBERS: ReadonlySet<string> = new Set([
  'id',
  'runId',
  'requestId',
  'spanId',
  'parentSpanId',
  'at',
  'queuedAt',
  'startedAt',
  'endedAt',
  'requestedAt',
  'answeredAt',
  'savedAt',
  'expiresAt',
  'durationMs',
  'wallMs',
  'workingMs',
  'ageMs',
  'worker',
]);

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

/** The README's volatile strings and the real values they stand for, across all its examples. */
export class AnswerBindings {
  private readonly actualOf = new Map<string, string>();

  /** Why `actual` cannot be what the README shows as `shown` for a volatile member, or undefined when it can. */
  bindVolatile(shown: unknown, actual: unknown): string | undefined {
    if (shown === null || typeof shown !== 'string') {
      return typeOf(shown) === typeOf(actual) ? undefined : `a ${typeOf(shown)} (shown ${JSON.stringify(shown)})`;
    }
    if (typeof actual !== 'string') return `a string (shown ${JSON.stringify(shown)})`;
    if (ISO_TIME.test(shown) && !ISO_TIME.test(actual)) return `an ISO-8601 time (shown ${shown})`;
    const bound = this.actualOf.get(shown);
    if (bound !== undefined && bound !== actual) return `${JSON.stringify(bound)}, the value shown as ${JSON.stringify(shown)} before`;
    if (shown !== '') this.actualOf.set(shown, actual);
    return undefined;
  }

  /** `text` with every volatile value the README showed before replaced by the real one. */
  substitute(text: string): string {
    if (this.actualOf.size === 0) return text;
    // One pass, longest first: a value that contains another is replaced whole, and nothing twice.
    const shown = [...this.actualOf.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
    return text.replace(new RegExp(shown.join('|'), 'g'), (value) => this.actualOf.get(value) ?? value);
  }
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
