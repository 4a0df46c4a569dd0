import { SpindleError } from '@spindle/contracts';
import { asDatabaseFault, isDatabaseFault } from './database-faults';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseFault', () => {
  it.each([
    ['a fast shutdown or failover (57P01)', pgError('57P01', 'terminating connection due to administrator command')],
    ['a crash shutdown (57P02)', pgError('57P02')],
    ['a server starting up or in recovery (57P03)', pgError('57P03', 'the database system is starting up')],
    ['a connection exception (08006)', pgError('08006')],
    ['too many connections (53300)', pgError('53300')],
    ['a refused connect', pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset socket', pgError('ECONNRESET')],
    ['a broken connection', new Error('Connection terminated unexpectedly')],
    ['a connect that timed out in the pool', new Error('timeout exceeded when trying to connect')],
    ['a client whose connection broke', new Error('Client has encountered a connection error and is not queryable')],
    ['every address of a name refused', Object.assign(new AggregateError([pgError('ECONNREFUSED'), pgError('ECONNREFUSED')]), {})],
    ['a wrapped outage', new Error('migrations of schema "x" failed', { cause: pgError('57P01') })],
    ['an outage already classified', new SpindleError('database_unavailable', 'down')],
  ])('says yes for %s', (_, e) => expect(isDatabaseFault(e)).toBe(true));

  it.each([
    ['a unique violation (23505)', pgError('23505')],
    ['a data exception (22P02)', pgError('22P02')],
    ['a wrong password (28P01): waiting does not help', pgError('28P01')],
    ['a missing database (3D000)', pgError('3D000')],
    ['a deadlock (40P01)', pgError('40P01')],
    ['a programming error', new TypeError('cannot read properties of undefined')],
    ['a message that merely mentions a connection', new Error('Connection terminated unexpectedly, or so the user wrote')],
    ['another SpindleError', new SpindleError('bus_unavailable', 'nats')],
    ['an AggregateError with one real failure in it', new AggregateError([pgError('ECONNREFUSED'), pgError('23505')])],
    ['nothing', undefined],
  ])('says no for %s', (_, e) => expect(isDatabaseFault(e)).toBe(false));

  it('does not follow a cause chain without end', () => {
    const e: Error & { cause?: unknown } = new Error('loop');
    e.cause = e;
    expect(isDatabaseFault(e)).toBe(false);
  });
});

describe('asDatabaseFault', () => {
  it('makes an outage a retryable database_unavailable with a Retry-After', () => {
    const e = asDatabaseFault(pgError('57P01', 'terminating connection due to administrator command'));
    expect(e).toBeInstanceOf(SpindleError);
    expect(e).toMatchObject({ code: 'database_unavailable', retryable: true, retryAfterSec: 5 });
  });

  it('leaves anything else as it is', () => {
    const e = pgError('23505');
    expect(asDatabaseFault(e)).toBe(e);
  });
});
