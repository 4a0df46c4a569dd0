import type { DestinationStream } from 'pino';
import { createLogger } from './json-logger';
import { startTelemetry, type Telemetry } from './telemetry.bootstrap';
import { withSpan } from './with-span.helper';

function captureLines(): { stream: DestinationStream; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { lines, stream: { write: (line: string) => void lines.push(JSON.parse(line)) } };
}

describe('createLogger', () => {
  let telemetry: Telemetry;

  // No processors and no endpoint: nothing is exported, but trace ids must still exist.
  beforeAll(() => {
    telemetry = startTelemetry({ serviceName: 'json-logger-spec' });
  });
  afterAll(() => telemetry.shutdown());

  it('adds trace_id/span_id of the active span, service and child bindings', async () => {
    const { stream, lines } = captureLines();
    const logger = createLogger('runner', { destination: stream }).child({ runId: 'run-1' });

    const ids = await withSpan(telemetry.tracer(), 'step', {}, async (span) => {
      logger.info({ step: 2 }, 'step started');
      return span.spanContext();
    });

    expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      msg: 'step started',
      service: 'runner',
      runId: 'run-1',
      step: 2,
      trace_id: ids.traceId,
      span_id: ids.spanId,
    });
  });

  it('omits trace fields outside a span and honours the level', () => {
    const { stream, lines } = captureLines();
    const logger = createLogger('gateway', { destination: stream, level: 'warn' });

    logger.info('dropped');
    logger.warn('kept');

    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', msg: 'kept', service: 'gateway' });
    expect(lines[0]).not.toHaveProperty('trace_id');
    expect(lines[0]).not.toHaveProperty('span_id');
  });

  it('masks a secret anywhere in a line, keeping it one JSON line', () => {
    const raw: string[] = [];
    const logger = createLogger('runner', { destination: { write: (line: string) => void raw.push(line) } });
    logger.warn(
      { err: { message: 'provider said: bad key sk-proj-abcdefghijklmnopqrstuvwxyz0123' } },
      'call with sk-ant-XXXXXXXXXXXXXXXXXXXXXXXX failed',
    );
    expect(raw).toHaveLength(1);
    expect(raw[0].endsWith('\n')).toBe(true);
    expect(raw[0]).not.toMatch(/sk-(proj|ant)-/);
    expect(JSON.parse(raw[0])).toMatchObject({ msg: 'call with [masked] failed', err: { message: 'provider said: bad key [masked]' } });
  });

  it('leaves out the pg client an error carries (its connection parameters, the password among them)', () => {
    const { stream, lines } = captureLines();
    const logger = createLogger('gateway', { destination: stream });
    const err = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      client: { connectionParameters: { user: 'spindle', password: 'hunter2-hunter2' } },
    });
    logger.warn({ err }, 'a connection broke');
    expect(lines[0]).toMatchObject({ err: { message: 'terminating connection due to administrator command', code: '57P01' } });
    expect(JSON.stringify(lines[0])).not.toContain('hunter2');
  });
});
