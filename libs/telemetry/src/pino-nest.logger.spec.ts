import type { DestinationStream } from 'pino';
import { createLogger } from './json-logger';
import { PinoNestLogger } from './pino-nest.logger';

describe('PinoNestLogger', () => {
  const lines: Record<string, unknown>[] = [];
  const stream: DestinationStream = { write: (line: string) => void lines.push(JSON.parse(line)) };
  const nest = () => new PinoNestLogger(createLogger('gateway', { destination: stream, level: 'trace' }));

  beforeEach(() => lines.splice(0));

  it('writes Nest context as a field', () => {
    nest().log('Mapped {/runs, POST} route', 'RouterExplorer');
    expect(lines[0]).toMatchObject({
      level: 'info',
      service: 'gateway',
      msg: 'Mapped {/runs, POST} route',
      context: 'RouterExplorer',
    });
  });

  it('keeps the stack Nest passes to error()', () => {
    const err = new Error('db down');
    nest().error(err.message, err.stack, 'ExceptionsHandler');
    expect(lines[0]).toMatchObject({ level: 'error', msg: 'db down', context: 'ExceptionsHandler' });
    expect(lines[0]['stack']).toBe(err.stack);
  });

  it('serialises Error messages and object messages', () => {
    const logger = nest();
    logger.warn(new Error('slow consumer'));
    logger.verbose({ event: 'tick', n: 1 }, 'Scheduler');

    expect(lines[0]).toMatchObject({ level: 'warn', msg: 'slow consumer', err: { message: 'slow consumer' } });
    expect(lines[1]).toMatchObject({ level: 'trace', event: 'tick', n: 1, context: 'Scheduler' });
  });

  it('maps Nest log levels to a pino threshold', () => {
    const logger = nest();
    logger.setLogLevels(['error', 'warn']);
    logger.log('hidden');
    logger.warn('shown');
    expect(lines.map((l) => l['msg'])).toEqual(['shown']);
  });
});
