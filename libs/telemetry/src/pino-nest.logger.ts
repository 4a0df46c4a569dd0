import type { LoggerService, LogLevel } from '@nestjs/common';
import type { Level, Logger } from 'pino';

const pinoLevelOf: Record<LogLevel, Level> = {
  verbose: 'trace',
  debug: 'debug',
  log: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
};

// Nest's own `Logger` appends its context name (e.g. 'RoutesResolver') as the
// LAST optional param, and error() is called as (message, stack?, context?).
const looksLikeStack = (v: unknown): v is string => typeof v === 'string' && /\n\s+at /.test(v);

/** `NestFactory.create(App, { logger: new PinoNestLogger(createLogger('gateway')) })`. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /** Nest passes the enabled set; pino has a threshold, so use the most verbose one. */
  setLogLevels(levels: LogLevel[]): void {
    const order: LogLevel[] = ['verbose', 'debug', 'log', 'warn', 'error', 'fatal'];
    const lowest = order.find((l) => levels.includes(l));
    this.logger.level = lowest ? pinoLevelOf[lowest] : 'silent';
  }

  private write(level: LogLevel, message: unknown, params: unknown[]): void {
    const rest = [...params];
    const fields: Record<string, unknown> = {};
    if (rest.length > 0 && typeof rest[rest.length - 1] === 'string' && !looksLikeStack(rest[rest.length - 1])) {
      fields['context'] = rest.pop();
    }
    const stackIndex = rest.findIndex(looksLikeStack);
    if (stackIndex >= 0) fields['stack'] = rest.splice(stackIndex, 1)[0];
    if (rest.length > 0) fields['params'] = rest;

    const log = this.logger[pinoLevelOf[level]].bind(this.logger);
    if (message instanceof Error) log({ ...fields, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) log({ ...fields, ...message });
    else log(fields, String(message));
  }
}
