// Unit tests of start-plan.mjs: node --test scripts/start-plan.test.mjs
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskUrl, localServicesToStart, portOccupant, portProblems, postgresProblem, postgresTarget } from './start-plan.mjs';

describe('start plan', () => {
  it('masks a password in a printed URL and leaves one without it alone', () => {
    assert.equal(maskUrl('postgres://app:s3cret@db:5433/x'), 'postgres://app:***@db:5433/x');
    assert.equal(maskUrl('nats://127.0.0.1:4222'), 'nats://127.0.0.1:4222');
  });

  it("reads a Postgres URL's target with libpq's defaults", () => {
    assert.deepEqual(postgresTarget('postgres://127.0.0.1'), { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' });
    assert.deepEqual(postgresTarget('postgres://me:pw@h:6000/shop'), { host: 'h', port: 6000, user: 'me', database: 'shop' });
  });

  it('names a missing database and the createdb command, without the password', () => {
    const line = postgresProblem('postgres://me:pw@h:6000/shop', { code: '3D000', message: 'database "shop" does not exist' });
    assert.equal(
      line,
      'the database "shop" does not exist at postgres://me:***@h:6000/shop (DATABASE_URL). To fix: createdb -h h -p 6000 -U me shop',
    );
  });

  it('says other connection failures in one line', () => {
    const line = postgresProblem('postgres://me:pw@h/shop', { code: '28P01', message: 'password authentication failed' });
    assert.match(line, /refused the user "me" at postgres:\/\/me:\*\*\*@h\/shop/);
    assert.doesNotMatch(line, /\n|pw@/);
  });

  it('tells a running Spindle stack from another program on a service port', () => {
    assert.equal(portOccupant(false), 'free');
    assert.equal(portOccupant(true, { status: 'ok' }), 'spindle');
    assert.equal(portOccupant(true, undefined), 'other');
  });

  it('says a running Spindle stack once, and each port another program holds', () => {
    assert.deepEqual(portProblems([{ service: 'gateway', port: 8080, occupant: 'free' }]), []);
    const problems = portProblems([
      { service: 'gateway', port: 8080, occupant: 'spindle' },
      { service: 'runner', variable: 'RUNNER_PORT', port: 8081, occupant: 'other' },
      { service: 'checkpoint', port: 8083, occupant: 'spindle' },
    ]);
    assert.equal(problems.length, 2);
    assert.match(problems[0], /^a Spindle stack is already running on port 8080 \(gateway: its \/healthz answers; also on 8083\)/);
    assert.match(problems[1], /^port 8081 \(runner\) is in use by another program.*RUNNER_PORT/);
  });

  it('starts Postgres and NATS itself only when nothing answers at a loopback URL (nats-server only when on the PATH)', () => {
    const base = {
      databaseUrl: 'postgres://me:pw@127.0.0.1:55432/shop',
      natsUrl: 'nats://localhost:54222',
      natsServerPath: '/usr/bin/nats-server',
    };
    const none = localServicesToStart({ ...base, postgresAnswers: true, natsAnswers: true });
    assert.deepEqual(none, { postgres: null, nats: null });
    const both = localServicesToStart({ ...base, postgresAnswers: false, natsAnswers: false });
    assert.deepEqual(both.postgres, { port: 55432, host: '127.0.0.1', user: 'me', password: 'pw', database: 'shop' });
    assert.deepEqual(both.nats, { port: 54222, binary: '/usr/bin/nats-server' });
    assert.equal(localServicesToStart({ ...base, natsServerPath: null, postgresAnswers: true, natsAnswers: false }).nats, null);
    const remote = {
      databaseUrl: 'postgres://db.internal/x',
      natsUrl: 'nats://nats.internal:4222',
      natsServerPath: '/usr/bin/nats-server',
    };
    assert.deepEqual(localServicesToStart({ ...remote, postgresAnswers: false, natsAnswers: false }), { postgres: null, nats: null });
  });
});
