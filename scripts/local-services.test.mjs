// Unit tests of local-services.mjs's data folder for an embedded Postgres: node --test scripts/local-services.test.mjs
// As root they run as the system user "postgres" (the case npm start meets on a server or in a container).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { preparePostgresDataDir } from './local-services.mjs';

function postgresAccount() {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  return uid.status === 0 ? { uid: Number(uid.stdout), gid: Number(gid.stdout) } : null;
}
const account = userInfo().uid === 0 ? postgresAccount() : null;
const asRoot = { skip: account ? false : 'needs root and a user "postgres"' };
const top = join(tmpdir(), `spindle-local-services-${process.pid}`);
after(() => rmSync(top, { recursive: true, force: true }));

describe("an embedded Postgres's data folder", () => {
  it('on a fresh clone (no .spindle yet) is 0700 and the user postgres', asRoot, () => {
    const dataDir = join(top, 'fresh', '.spindle', 'postgres');
    preparePostgresDataDir(dataDir, account);
    const data = statSync(dataDir);
    assert.equal(data.mode & 0o777, 0o700);
    assert.equal(data.uid, account.uid);
    // The .spindle it made is passable by postgres, which initdb needs: a 0700 root-owned one is "Permission denied".
    assert.equal(statSync(join(top, 'fresh', '.spindle')).mode & 0o001, 0o001);
    const writes = spawnSync('test', ['-w', dataDir], { uid: account.uid, gid: account.gid });
    assert.equal(writes.status, 0);
  });

  it('is prepared again without change on a second start', asRoot, () => {
    const dataDir = join(top, 'again', 'postgres');
    preparePostgresDataDir(dataDir, account);
    preparePostgresDataDir(dataDir, account);
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    assert.equal(statSync(dataDir).uid, account.uid);
  });

  it('names a folder above it that postgres cannot pass, and leaves that folder alone', asRoot, () => {
    const closed = join(top, 'closed');
    mkdirSync(closed, { recursive: true });
    chmodSync(closed, 0o700);
    assert.throws(
      () => preparePostgresDataDir(join(closed, '.spindle', 'postgres'), account),
      new RegExp(`the user "postgres" cannot reach .*: it cannot pass ${closed} \\(mode 700\\)\\. To fix: chmod o\\+x ${closed}`),
    );
    assert.equal(statSync(closed).mode & 0o777, 0o700);
  });

  it('as a normal user is a 0700 folder of its own', { skip: userInfo().uid === 0 ? 'runs as root' : false }, () => {
    const dataDir = join(top, 'user', '.spindle', 'postgres');
    preparePostgresDataDir(dataDir, {});
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
  });
});
