import { hostname } from 'node:os';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger } from 'pino';
import { secretMasker } from './secret-masker';

export type { Logger } from 'pino';

export interface JsonLoggerOptions {
  /** pino level name; default `info`. Apps map LOG_LEVEL to this at their edge. */
  level?: string;
  /** Default stdout. Tests pass a stream that captures lines. */
  destination?: DestinationStream;
}

/**
 * One JSON object per line: `level` as a label, ISO `time`, `service`, and
 * `trace_id`/`span_id` of the active span so logs join traces in the backend.
 * Add per-run fields with `logger.child({ runId })`.
 */
export function createLogger(service: string, opts: JsonLoggerOptions = {}): Logger {
  return pino(
    {
      level: opts.level ?? 'info',
      // Setting `base` replaces pino's default {pid, hostname}; keep them.
      base: { service, pid: process.pid, hostname: hostname() },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Evaluated per line (also for child loggers), so it reflects the span
      // active where the log call happens, not where the logger was created.
      mixin: activeTraceFields,
      // Credentials never reach a log line, whatever object a caller logs: known fields are
      // redacted, and any secret-shaped value left in the line is masked on its way out.
      redact: {
        paths: ['authorization', '*.authorization', '*.headers.authorization', 'key', '*.key', 'token', '*.token'],
        censor: '[redacted]',
      },
      hooks: { streamWrite: maskLine },
      serializers: { err: errorFields },
    },
    opts.destination,
  );
}

/**
 * pino's error serializer, less the `client` a `pg` error carries: the whole connection with its
 * parameters (the password among them) and type tables, kilobytes on every line of an outage.
 */
function errorFields(e: unknown): unknown {
  const fields = pino.stdSerializers.err(e as Error) as unknown as Record<string, unknown>;
  if (fields && typeof fields === 'object' && 'client' in fields) delete fields.client;
  return fields;
}

function activeTraceFields(): Record<string, string> {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** A log line (JSON and its newline) with any secret in it masked. */
function maskLine(line: string): string {
  const json = line.endsWith('\n') ? line.slice(0, -1) : line;
  const masked = secretMasker().maskJsonText(json);
  return masked === json ? line : `${masked}\n`;
}
