import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RunEvent } from '@spindle/contracts';
import { freePort, startStack, type Stack } from '@spindle/testing';

/** The `spindle` CLI as a user runs it: the built binary, as a process, against a real stack. */
const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'apps', 'cli', 'bin', 'spindle.js');
const ESC = String.fromCharCode(27);

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('spindle CLI', () => {
  let stack: Stack;
  const work = mkdtempSync(join(tmpdir(), 'spindle-cli-'));
  const file = (name: string, value: unknown) => {
    const path = join(work, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  };

  /** Runs `spindle <args>` to its exit; `env` adds to (or, given as undefined, removes from) the stack's settings. */
  const spindle = (args: string[], env: Record<string, string | undefined> = {}): Promise<Outcome> =>
    new Promise((done, fail) => {
      const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', fail);
      child.on('close', (code) => done({ code, stdout, stderr }));
    });
  const cliEnv = (extra: Record<string, string | undefined>) => {
    const env: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      SPINDLE_URL: stack.gatewayUrl,
      SPINDLE_TOKEN: stack.adminKey,
      ...extra,
    };
    return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<string, string>;
  };
  const lines = (text: string) => text.split('\n').filter(Boolean);
  const ndjson = (text: string) => lines(text).map((l) => JSON.parse(l) as RunEvent);
  /** A failure is reported, never thrown: no stack frame reaches the user. */
  const noStackTrace = (outcome: Outcome) => expect(outcome.stderr).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m);
  /** Waits (through the API, not the CLI: cheaper) until the run has asked a person something. */
  const pendingRequests = async (runId: string) => {
    for (;;) {
      const res = await stack.api(`/v1/runs/${runId}/requests`);
      const { requests } = (await res.json()) as { requests: Array<{ requestId: string; status: string }> };
      const pending = requests.filter((r) => r.status === 'pending');
      if (pending.length > 0) return pending;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    stack = await startStack();
    const saved = await spindle(['workflows', 'put', 'hello', join(ROOT, 'examples', 'hello-workflow.json')]);
    expect(saved).toMatchObject({ code: 0, stdout: 'hello v1 saved\n' });
    const ask = {
      kind: 'graph',
      nodes: [
        { id: 'ask', type: 'human', prompt: 'Name a colour', form: 'text' },
        { id: 'done', type: 'set', values: { colour: '{{ask.text}}' } },
      ],
      edges: [{ from: 'ask', to: 'done' }],
    };
    expect((await spindle(['workflows', 'put', 'ask', file('ask.json', ask)])).code).toBe(0);
  });
  afterAll(() => stack?.stop());

  it('keeps the catalog: workflows put (again unchanged), list, get, graph; agents put and list', async () => {
    expect(await spindle(['workflows', 'put', 'hello', join(ROOT, 'examples', 'hello-workflow.json')])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('hello v1 unchanged'),
    });
    const list = await spindle(['workflows', 'list']);
    expect(lines(list.stdout)[0]).toMatch(/^name\s+version\s+updated$/);
    expect(list.stdout).toMatch(/^hello\s+1\s/m);
    const got = await spindle(['workflows', 'get', 'hello']);
    expect(JSON.parse(got.stdout)).toEqual(JSON.parse(readFileSync(join(ROOT, 'examples', 'hello-workflow.json'), 'utf8')));
    const graph = await spindle(['workflows', 'graph', 'hello']);
    expect(graph.stdout).toMatch(/^hello v1, entry greet$/m);
    expect(graph.stdout).toMatch(/^long_enough\s+reply\s+true/m);
    const graphJson = JSON.parse((await spindle(['--json', 'workflows', 'graph', 'hello'])).stdout) as { nodes: Array<{ id: string }> };
    expect(graphJson.nodes.map((n) => n.id).sort()).toEqual(['count', 'greet', 'long_enough', 'reply', 'too_short']);

    expect(
      await spindle(['agents', 'put', 'helper', file('helper.json', { model: 'offline:echo', instructions: 'Be brief.' })]),
    ).toMatchObject({ code: 0, stdout: 'helper v1 saved\n' });
    expect((await spindle(['agents', 'list'])).stdout).toMatch(/^helper\s+1\s+offline:echo\s/m);
  });

  it('follows a run to completion: one line per event off a terminal, NDJSON with --json, exit 0', async () => {
    const plain = await spindle(['run', 'hello', '--input', '{"name":"Ada"}', '--follow']);
    expect(plain.code).toBe(0);
    const shown = lines(plain.stdout);
    expect(shown[0]).toMatch(/^#1 run\.queued {2}hello v1 input \{"name": "Ada"\}$/);
    expect(shown).toContainEqual(expect.stringMatching(/^#\d+ node\.completed root\/greet {2}\d+ ms \{"greeting": "Hello Ada"\}$/));
    expect(shown.at(-1)).toMatch(/^#\d+ run\.completed {2}\d+ ms, 22 tok/);

    const json = await spindle(['--json', 'run', 'hello', '--input', `@${file('input.json', { name: 'Grace' })}`, '--follow']);
    expect(json.code).toBe(0);
    const events = ndjson(json.stdout);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]).toMatchObject({ type: 'run.queued', data: { input: { name: 'Grace' } } });
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', data: { output: { answer: expect.stringContaining('Grace') } } });
  });

  it('passes --parameters to the run (checked against the workflow), from JSON or a file', async () => {
    const forecast = {
      kind: 'graph',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
      nodes: [{ id: 'note', type: 'set', values: { noted: true } }],
    };
    expect((await spindle(['workflows', 'put', 'forecast', file('forecast.json', forecast)])).code).toBe(0);
    const inline = await spindle(['--json', 'run', 'forecast', '--parameters', '{"city":"Oslo"}', '--follow']);
    expect(inline.code).toBe(0);
    expect(ndjson(inline.stdout)[0]).toMatchObject({ type: 'run.queued', data: { parameters: { city: 'Oslo' } } });
    const fromFile = await spindle(['--json', 'run', 'forecast', '-p', `@${file('params.json', { city: 'Bergen' })}`, '--follow']);
    expect(ndjson(fromFile.stdout)[0]).toMatchObject({ type: 'run.queued', data: { parameters: { city: 'Bergen' } } });
    // The workflow's schema refuses a run without its parameter; an argument that is not an object is the CLI's own refusal.
    const missing = await spindle(['run', 'forecast']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('parameters');
    expect((await spindle(['run', 'forecast', '--parameters', '[1]'])).code).toBe(2);
  });

  it('attaches files with --file: each uploaded, its reference under input.files in run.queued; refuses an input with files', async () => {
    const shot = join(work, 'shot.png');
    const bytes = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('cli shot')]);
    writeFileSync(shot, bytes);
    const notes = join(work, 'notes.md');
    writeFileSync(notes, '# Notes\n');
    const json = await spindle(['--json', 'run', 'hello', '--input', '{"name":"Ada"}', '--file', shot, '--file', notes, '--follow']);
    expect(json.code).toBe(0);
    expect(json.stderr).toMatch(/uploaded .*shot\.png as file_[a-z0-9]{26} \(image\/png, 16 bytes\)/);
    const [queued] = ndjson(json.stdout);
    expect(queued).toMatchObject({
      type: 'run.queued',
      data: {
        input: {
          name: 'Ada',
          files: [
            { type: 'file', fileId: expect.stringMatching(/^file_/), mediaType: 'image/png', bytes: 16, name: 'shot.png' },
            { type: 'file', fileId: expect.stringMatching(/^file_/), mediaType: 'text/markdown', bytes: 8, name: 'notes.md' },
          ],
        },
      },
    });
    const refused = await spindle(['run', 'hello', '--input', '{"files":[]}', '--file', shot]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/already has "files"/);
  });

  it('reads a run back: runs list|get, trace as the README table, events --after, export', async () => {
    const started = await spindle(['run', 'hello', '--input', '{"name":"Ada"}']);
    expect(started.code).toBe(0);
    const runId = started.stdout.trim();
    expect(runId).toMatch(/^[0-9A-Z]{26}$/);
    expect((await spindle(['events', runId, '--follow'])).code).toBe(0);

    const get = await spindle(['runs', 'get', runId]);
    expect(get.code).toBe(0);
    expect(get.stdout).toMatch(/^status\s+completed$/m);
    expect(get.stdout).toMatch(/^tokens\s+22 \(12 in, 10 out\)$/m);
    const listed = JSON.parse((await spindle(['--json', 'runs', 'list', '--workflow', 'hello', '--limit', '50'])).stdout) as {
      runs: Array<{ runId: string }>;
    };
    expect(listed.runs.map((r) => r.runId)).toContain(runId);
    expect((await spindle(['runs', 'list', '--status', 'completed'])).stdout).toMatch(
      new RegExp(`^${runId}\\s+hello v1\\s+completed`, 'm'),
    );

    const trace = lines((await spindle(['trace', runId])).stdout);
    expect(trace[0]).toMatch(/^kind\s+node\s+path\s+status\s+ms\s+output \(the state delta\)$/);
    expect(trace[1]).toMatch(/^run\s+-\s+root\s+completed\s+\d+\s+\{"input": \{\.\.\.\}/);
    expect(trace).toContainEqual(expect.stringMatching(/^node\s+greet\s+root\/greet\s+completed\s+\d+\s+\{"greeting": "Hello Ada"\}$/));
    expect(trace).toContainEqual(
      expect.stringMatching(/^model\s+reply\s+root\/reply\s+completed\s+\d+\s+\{"text": "Hello Ada, what a fine day/),
    );

    const all = ndjson((await spindle(['--json', 'events', runId])).stdout);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    const total = all.length;
    const after = await spindle(['events', runId, '--after', String(total - 2)]);
    expect(lines(after.stdout).map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual([
      `#${total - 1} ${all[total - 2].type}`,
      `#${total} run.completed`,
    ]);

    const fork = await spindle(['--json', 'runs', 'fork', runId, '--state', '{"greeting":"Hi there Ada"}', '--follow']);
    expect(fork.code).toBe(0);
    const forked = ndjson(fork.stdout);
    expect(forked[0]).toMatchObject({ type: 'run.queued', data: { forkedFrom: { runId } } });
    expect(forked.at(-1)?.type).toBe('run.completed');

    const out = join(work, 'export.json');
    const exported = await spindle(['export', runId, '--out', out]);
    expect(exported).toMatchObject({ code: 0, stderr: `spindle: wrote ${total} events of run ${runId} to ${out}\n` });
    const document = JSON.parse(readFileSync(out, 'utf8')) as { run: { status: string }; events: RunEvent[]; trace: { spans: unknown[] } };
    expect(document.run.status).toBe('completed');
    expect(document.events).toEqual(all);
    expect(document.trace.spans.length).toBeGreaterThan(5);
  });

  it('exits 1 when a followed run fails, with the failure on its last line', async () => {
    const broken = { kind: 'graph', nodes: [{ id: 'f', type: 'function', function: 'no_such_function' }], edges: [] };
    // No runner has the function: the save is refused (exit 1) unless it skips the capability check.
    const refused = await spindle(['workflows', 'put', 'broken', file('broken.json', broken)]);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('function_not_found') });
    const saved = await spindle(['workflows', 'put', 'broken', file('broken.json', broken), '--definition-only']);
    expect(saved).toMatchObject({ code: 0, stdout: 'broken v1 saved\n' });
    const run = await spindle(['run', 'broken', '--follow']);
    expect(run.code).toBe(1);
    expect(lines(run.stdout).at(-1)).toMatch(/^#\d+ run\.failed {2}function_not_found: /);
    const runId = lines(run.stderr)[0].replace('spindle: run ', '');
    expect((await spindle(['runs', 'get', runId])).code).toBe(1);
  });

  it('answers a waiting run (requests list|answer), gives up at --wait-timeout (4), and exits 3 when the run is canceled', async () => {
    const waitingRun = (await spindle(['run', 'ask'])).stdout.trim();
    const [request] = await pendingRequests(waitingRun);
    // The run waits for a person, so following it ends only at --wait-timeout.
    const waited = await spindle(['events', waitingRun, '--follow', '--wait-timeout', '1']);
    expect(waited.code).toBe(4);
    expect(waited.stderr).toMatch(
      new RegExp(
        `^spindle: run ${waitingRun} has not ended after 1 s; follow it again with: spindle events ${waitingRun} --follow --after \\d+$`,
        'm',
      ),
    );
    expect((await spindle(['events', waitingRun])).stdout).toMatch(/^#\d+ run\.awaiting {2}waiting for input /m);
    const inbox = await spindle(['requests', 'list']);
    expect(inbox.stdout).toMatch(
      new RegExp(`^${request.requestId}\\s+input\\s+${waitingRun}\\s+ask/ask\\s+pending\\s+\\d+ s\\s+text: Name a colour$`, 'm'),
    );
    const answered = await spindle(['requests', 'answer', request.requestId, '--text', 'teal', '--as', 'ada']);
    expect(answered).toMatchObject({ code: 0, stdout: `${request.requestId} answered; run ${waitingRun} resumes\n` });
    const rest = await spindle(['--json', 'events', waitingRun, '--follow']);
    expect(rest.code).toBe(0);
    expect(ndjson(rest.stdout).at(-1)).toMatchObject({ type: 'run.completed', data: { output: { colour: 'teal' } } });
    const again = await spindle(['requests', 'answer', request.requestId, '--run', waitingRun, '--text', 'teal']);
    expect(again).toMatchObject({ code: 0, stdout: `${request.requestId} already had this answer; nothing changed\n` });

    const canceledRunId = (await spindle(['run', 'ask'])).stdout.trim();
    const following = spindle(['events', canceledRunId, '--follow']);
    await pendingRequests(canceledRunId);
    expect(await spindle(['runs', 'cancel', canceledRunId, '--reason', 'no colour today'])).toMatchObject({
      code: 0,
      stdout: `${canceledRunId} canceled\n`,
    });
    const followed = await following;
    expect(followed.code).toBe(3);
    expect(lines(followed.stdout).at(-1)).toMatch(/^#\d+ run\.canceled {2}.*no colour today$/);
  });

  it("prints a refusal's title, detail and field errors without a stack trace and exits 1; bad arguments exit 2", async () => {
    const invalid = { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }], edges: [{ from: 'a', to: 'nowhere' }] };
    const refused = await spindle(['workflows', 'put', 'invalid', file('invalid.json', invalid)]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    // The same lines the README shows.
    expect(lines(refused.stderr)).toEqual([
      'spindle: invalid definition (400 invalid_definition)',
      '  invalid workflow definition: node "nowhere", field edges[0].to: edge to unknown node "nowhere"',
      '  - nowhere: edges[0].to: edge to unknown node "nowhere"',
    ]);
    noStackTrace(refused);

    const missing = await spindle(['runs', 'get', 'no-such-run']);
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/^spindle: .+ \(404 run_not_found\)\n/) });

    const unauthenticated = await spindle(['runs', 'list'], { SPINDLE_TOKEN: 'spk_nope_nope' });
    expect(unauthenticated.code).toBe(1);
    expect(unauthenticated.stderr).toMatch(/\(401 unauthenticated\)/);

    const badJson = await spindle(['run', 'hello', '--input', '{name:']);
    expect(badJson).toMatchObject({ code: 2, stderr: expect.stringMatching(/^spindle: --input is not valid JSON/) });
    expect((await spindle(['runs', 'list', '--limit', 'many'])).code).toBe(2);
    expect((await spindle(['no-such-command'])).code).toBe(2);
    noStackTrace(badJson);
  });

  it('says where it looked for an unreachable gateway and how to start one (exit 5)', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const outcome = await spindle(['runs', 'list'], { SPINDLE_URL: url });
    expect(outcome.code).toBe(5);
    expect(outcome.stderr).toContain(`no Spindle gateway answered at ${url} (from SPINDLE_URL)`);
    expect(outcome.stderr).toContain('npm start');
    noStackTrace(outcome);
  });

  it('draws the run as a tree that updates in place on a terminal, waiting for a person and then done', async () => {
    // `script` gives the CLI a pseudo-terminal; -e exits with the CLI's own code.
    const command = `${process.execPath} ${BIN} run ask --follow`;
    let screen = '';
    let shown: () => void;
    const waiting = new Promise<void>((r) => (shown = r));
    const exited = new Promise<number | null>((done, fail) => {
      const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: work, env: cliEnv({}) });
      child.stdout.on('data', (chunk: Buffer) => {
        screen += chunk.toString();
        if (screen.includes('waiting for a person')) shown();
      });
      child.on('error', fail);
      child.on('close', done);
    });
    await waiting;
    const requestId = /spindle requests answer (\S+)/.exec(screen)?.[1] ?? 'none drawn';
    expect((await spindle(['requests', 'answer', requestId, '--text', 'amber'])).code).toBe(0);
    expect(await exited).toBe(0);

    // The waiting frame was drawn, then the cursor moved back up over it and the screen below was cleared.
    expect(screen).toMatch(new RegExp(`${ESC}\\[\\d+A\r${ESC}\\[0J`));
    const finalFrame = (screen.split(`${ESC}[0J`).at(-1) ?? '')
      .replace(`${ESC}[?25h`, '')
      .split(/\r?\n/)
      .map((l) => l.replace(/\r/g, ''))
      .filter(Boolean);
    expect(finalFrame[0]).toMatch(/^ask v1 {2}[0-9A-Z]{26}\s+completed\s+0 tok\s+\$0\.00\s+\d+ ms$/);
    expect(finalFrame.slice(1).map((l) => l.replace(/\s+\d+ ms$/, '').replace(/\s+/g, ' '))).toEqual([
      ' ✓ ask (human) completed',
      ' ✓ input (request) completed',
      ' ✓ done (set) completed',
    ]);
    expect(finalFrame[2]).toMatch(/^ {4}✓ input/);
  });

  describe('workflows built in code (@spindle/sdk)', () => {
    // Inside the repository (tmp/ is ignored), so `@spindle/sdk` and `typescript` resolve as in a user's project.
    mkdirSync(join(ROOT, 'tmp'), { recursive: true });
    const code = mkdtempSync(join(ROOT, 'tmp', 'cli-code-'));
    const moduleFile = (name: string, lines: string[]) => {
      writeFileSync(join(code, name), `${lines.join('\n')}\n`);
      return join(code, name);
    };
    const sdk = `import { workflow, sequential } from '@spindle/sdk';`;
    const pair = moduleFile('pair.mjs', [
      sdk,
      `export const first = workflow('code-first').node('a', { type: 'set', values: { a: 1 } });`,
      `export const second = workflow('code-second').node('b', { type: 'set', values: { b: 2 } });`,
    ]);
    const brief = moduleFile('brief.ts', [
      sdk,
      `const writer = { name: 'writer', model: 'offline:echo' } as const;`,
      `export default sequential('code-brief', { agents: [writer] });`,
    ]);

    it('workflows put takes a .ts module: the one workflow it exports, or the one of that name', async () => {
      const triage = join(ROOT, 'examples', 'triage.workflow.ts');
      expect(await spindle(['workflows', 'put', 'triage-copy', triage])).toMatchObject({ code: 0, stdout: 'triage-copy v1 saved\n' });
      const stored = JSON.parse((await spindle(['workflows', 'get', 'triage-copy'])).stdout) as { nodes: Array<{ id: string }> };
      expect(stored.nodes.map((n) => n.id)).toEqual(['count', 'long_enough', 'classify', 'ask_more', 'tally']);
      expect(await spindle(['workflows', 'put', 'code-second', pair])).toMatchObject({ code: 0, stdout: 'code-second v1 saved\n' });
      const neither = await spindle(['workflows', 'put', 'code-third', pair]);
      expect(neither).toMatchObject({ code: 1, stdout: '' });
      expect(neither.stderr).toContain('exports 2 workflows (code-first, code-second) and none is named "code-third"');
      noStackTrace(neither);
    });

    it('deploy saves every workflow the modules export under its own name; again, nothing changes', async () => {
      expect(await spindle(['deploy', pair, brief])).toMatchObject({
        code: 0,
        stdout: 'code-first v1 saved\ncode-second v1 unchanged (the same definition is already stored)\ncode-brief v1 saved\n',
      });
      const again = await spindle(['--json', 'deploy', pair, brief]);
      expect(JSON.parse(again.stdout)).toEqual({
        workflows: ['code-first', 'code-second', 'code-brief'].map((name) => ({ name, version: 1, created: false })),
      });
      const run = await spindle(['run', 'code-brief', '--input', '{"topic":"logs"}', '--follow']);
      expect(run.code).toBe(0);
    });

    it('says why nothing was saved, with a non-zero exit and no stack trace', async () => {
      const fresh = moduleFile('fresh.ts', [sdk, `export default workflow('code-fresh').node('a', { type: 'set', values: { a: 1 } });`]);
      const throws = moduleFile('throws.mjs', [`throw new Error('SETTING is not set');`]);
      const thrown = await spindle(['deploy', fresh, throws]);
      expect(thrown).toMatchObject({ code: 1, stdout: '' });
      expect(thrown.stderr).toMatch(/throws\.mjs threw while loading: SETTING is not set/);
      // The modules load before anything is saved.
      expect((await spindle(['workflows', 'get', 'code-fresh'])).code).toBe(1);

      const none = await spindle(['deploy', moduleFile('none.ts', ['export const answer = 42;'])]);
      expect(none).toMatchObject({ code: 1 });
      expect(none.stderr).toContain('none.ts exports no workflow: export one made with @spindle/sdk');

      const bad = moduleFile('bad.ts', [
        sdk,
        `const body = { nodes: [{ id: 'x', type: 'set', values: { x: 1 } }] } as const;`,
        `export default workflow('code-bad').node('rounds', { type: 'loop', max_steps: 0, body });`,
      ]);
      const refused = await spindle(['deploy', bad]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`spindle: workflow "code-bad" from ${bad} was not saved:`);
      expect(refused.stderr).toMatch(/\(400 invalid_definition\)/);
      expect(refused.stderr).toMatch(/nodes\[0\]\.max_steps/);

      const json = await spindle(['deploy', join(ROOT, 'examples', 'hello-workflow.json')]);
      expect(json).toMatchObject({ code: 2 });
      expect(json.stderr).toContain('deploy takes modules');
      [thrown, none, refused, json].forEach(noStackTrace);
    });
  });
});
