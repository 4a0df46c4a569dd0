import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { humanDuration, signWebhook, type RunEvent } from '@spindle/contracts';
import { eventually, freePort, readsControlPlaneSettings, startStack, type Stack } from '@spindle/testing';

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
    outcomeOf(spawn(process.execPath, [BIN, ...args], { cwd: work, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }));
  /** What a child printed and how it exited. */
  const outcomeOf = (child: ChildProcessByStdio<null, Readable, Readable>): Promise<Outcome> =>
    new Promise((done, fail) => {
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
    // As `npm start` does: webhooks to a receiver on 127.0.0.1 (`spindle webhooks listen`) are allowed.
    stack = await startStack({
      serviceEnv: (name): Record<string, string> =>
        readsControlPlaneSettings(name) ? { SPINDLE_WEBHOOK_ALLOW_HTTP: 'true', SPINDLE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } : {},
    });
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
    expect(shown).toContainEqual(expect.stringMatching(/^#\d+ node\.completed root\/greet {2}wall \d+ ms \{"greeting": "Hello Ada"\}$/));
    expect(shown.at(-1)).toMatch(/^#\d+ run\.completed {2}wall \d+(\.\d)? m?s, 22 tok/);

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
    expect(trace[0]).toMatch(/^kind\s+node\s+path\s+status\s+wall ms\s+working ms\s+output \(the state delta\)$/);
    expect(trace[1]).toMatch(/^run\s+-\s+root\s+completed\s+\d+\s+\d+\s+\{"input": \{\.\.\.\}/);
    expect(trace).toContainEqual(
      expect.stringMatching(/^node\s+greet\s+root\/greet\s+completed\s+\d+\s+\d+\s+\{"greeting": "Hello Ada"\}$/),
    );
    expect(trace).toContainEqual(
      expect.stringMatching(/^model\s+reply\s+root\/reply\s+completed\s+\d+\s+\d+\s+\{"text": "Hello Ada, what a fine day/),
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
    // Its lineage in words, as the console says it, and its parent's id (the tail) in the list's parent column.
    const forkId = forked[0].runId;
    expect((await spindle(['runs', 'get', forkId])).stdout).toMatch(
      new RegExp(`^forked from\\s+${runId} at cp-\\d+ \\(event \\d+\\) by \\S.*$`, 'm'),
    );
    expect((await spindle(['runs', 'list', '--workflow', 'hello', '--limit', '50'])).stdout).toMatch(
      new RegExp(`^${forkId}\\s.*\\s…${runId.slice(-10)}$`, 'm'),
    );

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
    expect(lines(followed.stdout).at(-1)).toMatch(/^#\d+ run\.canceled {2}.*no colour today \(wall [^)]+\)$/);
  });

  it('answers a plan review with the flags the hint shows, keeping the comment in the log and the trace', async () => {
    const review = {
      kind: 'graph',
      nodes: [{ id: 'review', type: 'human', prompt: 'Approve the plan', form: 'plan_review', plan: 'write, then check' }],
      edges: [],
    };
    expect((await spindle(['workflows', 'put', 'review', file('review.json', review)])).code).toBe(0);
    const runId = (await spindle(['run', 'review'])).stdout.trim();
    const [request] = await pendingRequests(runId);
    // The help names the flags each kind takes; --text alone is refused with the plan review's.
    expect((await spindle(['requests', 'answer', '--help'])).stdout).toContain(
      'plan_review: --approve [--comment <text>] | --reject --text <revision>',
    );
    const alone = await spindle(['requests', 'answer', request.requestId, '--text', 'go']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('a plan_review request takes --approve [--comment <text>] | --reject --text <revision>');
    expect(await spindle(['requests', 'answer', request.requestId, '--approve', '--text', 'fine, keep it short'])).toMatchObject({
      code: 0,
      stdout: `${request.requestId} answered; run ${runId} resumes\n`,
    });
    const events = ndjson((await spindle(['--json', 'events', runId, '--follow'])).stdout);
    expect(events.find((e) => e.type === 'input.answered')).toMatchObject({
      data: { answer: { approved: true, comment: 'fine, keep it short' } },
    });
    expect(events.at(-1)?.type).toBe('run.completed');
    for (;;) {
      const trace = (await (await stack.api(`/v1/runs/${runId}/trace`)).json()) as { spans: Array<{ kind: string; output?: unknown }> };
      const answered = trace.spans.find((s) => s.kind === 'request' && s.output !== undefined && s.output !== null);
      if (answered) {
        expect(answered.output).toMatchObject({ answer: { approved: true, comment: 'fine, keep it short' } });
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it('keeps a dataset: put, add a JSON Lines and a CSV file, add a run, list its items by version', async () => {
    expect((await spindle(['datasets', 'put', 'capitals', '--description', 'capitals of Europe'])).stdout).toBe(
      'capitals: version 0, 0 item(s)\n',
    );
    const jsonl = join(work, 'capitals.jsonl');
    writeFileSync(jsonl, '{"input":{"q":"France?"},"expected":"Paris"}\n{"input":{"q":"Italy?"},"expected":"Rome"}\n');
    expect((await spindle(['datasets', 'add', 'capitals', jsonl])).stdout).toBe('capitals: 2 item(s) added, now version 1\n');
    const csv = join(work, 'capitals.csv');
    writeFileSync(csv, 'input,expected,region\n"{""q"":""Spain?""}",Madrid,south\n');
    expect((await spindle(['datasets', 'add', 'capitals', csv])).stdout).toBe('capitals: 1 item(s) added, now version 2\n');
    const run = await spindle(['--json', 'run', 'hello', '--input', '{"name":"Ada"}', '--follow']);
    const runId = (ndjson(run.stdout)[0] as { runId: string }).runId;
    expect((await spindle(['datasets', 'add-runs', 'capitals', runId, '--with-output'])).stdout).toBe(
      'capitals: 1 item(s) from runs added, now version 3\n',
    );
    const listed = await spindle(['datasets', 'items', 'capitals', '--version', '2']);
    expect(lines(listed.stdout)[0]).toBe('capitals version 2: 3 item(s)');
    expect(listed.stdout).toContain('"Madrid"');
    expect(listed.stdout).not.toContain(runId);
    const items = JSON.parse((await spindle(['--json', 'datasets', 'items', 'capitals'])).stdout) as {
      items: Array<{ sourceRunId: string | null; expected: unknown }>;
    };
    expect(items.items.at(-1)).toMatchObject({ sourceRunId: runId, expected: { answer: expect.stringContaining('Ada') } });
    expect(lines((await spindle(['datasets', 'list'])).stdout)).toContainEqual(
      expect.stringMatching(/^capitals +3 +4 +capitals of Europe$/),
    );
    const bad = join(work, 'bad.jsonl');
    writeFileSync(bad, '{"input":1}\n{"inptu":2}\n');
    const refused = await spindle(['datasets', 'add', 'capitals', bad]);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('bad.jsonl:2: not a dataset item')]);
  });

  it('runs an experiment over the dataset and exits 1 when a score falls under --fail-under, for CI', async () => {
    const quickly = { kind: 'graph', nodes: [{ id: 'done', type: 'set', values: { done: true } }] };
    expect((await spindle(['workflows', 'put', 'quickly', file('quickly.json', quickly)])).code).toBe(0);
    const evaluators = file('evaluators.json', [{ type: 'latency_below', name: 'quick', maxMs: 60_000 }]);
    const experiment = [
      'experiments',
      'run',
      'quickly',
      '--dataset',
      'capitals',
      '--evaluators',
      `@${evaluators}`,
      '--fail-under',
      'quick=1',
    ];
    const passing = await spindle(experiment);
    expect(passing.code).toBe(0);
    const [headline, summary, quick] = lines(passing.stdout);
    expect(headline).toMatch(/^exp_\w{26} {2}completed {2}quickly v1 over capitals v3$/);
    expect(summary).toMatch(/^ {2}4 item\(s\): 4 completed; \$[\d.]+, \d+ tokens, p50 wall \d+ ms$/);
    expect(quick).toBe('    quick: mean 1 over 4');
    const failing = await spindle([...experiment, '--fail-under', 'correct=0.9']);
    expect([failing.code, failing.stderr]).toEqual([
      1,
      expect.stringContaining('below the threshold: correct: no item has a numeric or boolean score'),
    ]);
    const ids = [passing, failing].map((o) => /^(exp_\w{26})/.exec(o.stdout)![1]!);
    const csv = await spindle(['experiments', 'compare', ...ids, '--csv']);
    expect(csv.stdout.split('\r\n')[0]).toContain(`${ids[1]} quick`);
    expect(csv.stdout.trimEnd().split('\r\n')).toHaveLength(5);
  });

  it('replays the last recorded runs through a changed version, and exits 1 where one diverged', async () => {
    const greeter = (prompt: string) => ({ kind: 'graph', nodes: [{ id: 'reply', type: 'llm', model: 'offline:echo', prompt }] });
    expect((await spindle(['workflows', 'put', 'greeter', file('greeter.json', greeter('Hi {{input}}'))])).code).toBe(0);
    for (const name of ['Ada', 'Alan'])
      expect((await spindle(['run', 'greeter', '--input', JSON.stringify(name), '--follow'])).code).toBe(0);
    // --last reads the runs list, which the trace recorder keeps: both runs are in it first.
    await eventually(async () => {
      const { runs } = (await (await stack.api('/v1/runs?workflow=greeter&status=completed')).json()) as { runs: unknown[] };
      expect(runs).toHaveLength(2);
    });
    const same = await spindle(['replays', 'run', 'greeter', '--last', '2', '--fail-on-divergence']);
    expect(same.code).toBe(0);
    expect(lines(same.stdout)[1]).toMatch(/^ {2}2 same; cost recorded \$0, replay \$0, spent \$0$/);
    expect((await spindle(['workflows', 'put', 'greeter', file('greeter.json', greeter('Hello {{input}}'))])).code).toBe(0);
    const changed = await spindle(['replays', 'run', 'greeter', '--last', '2', '--fail-on-divergence']);
    expect([changed.code, changed.stderr]).toEqual([1, expect.stringContaining('spindle: 2 replay(s) did not end as recorded')]);
    const [headline, summary, header, ...rows] = lines(changed.stdout);
    expect(headline).toMatch(/^rpl_\w{26} {2}greeter v2 {2}on divergence: stop$/);
    expect(summary).toMatch(/^ {2}2 stopped;/);
    expect(header).toMatch(/^recorded run +replay run +outcome +node +diverged$/);
    expect(rows).toHaveLength(2);
    for (const row of rows)
      expect(row).toMatch(/ stopped +reply +model_call: message 1 "Hello (Ada|Alan)" where the recording sent "Hi (Ada|Alan)"$/);
    const shown = await spindle(['--json', 'replays', 'show', /^(rpl_\w{26})/.exec(headline)![1]!]);
    expect((JSON.parse(shown.stdout) as { summary: { byOutcome: unknown } }).summary.byOutcome).toEqual({ stopped: 2 });
  });

  it('names the file it cannot read or parse', async () => {
    const bad = join(work, 'bad.json');
    writeFileSync(bad, '{ not json');
    const refused = await spindle(['workflows', 'put', 'bad', 'bad.json']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^spindle: bad\.json is not valid JSON \(/m);
    expect(refused.stderr).not.toContain('<file>');
    expect((await spindle(['agents', 'put', 'bad', 'missing.json'])).stderr).toMatch(/cannot read missing\.json: ENOENT/);
  });

  it('exits 0 and says nothing when the reader of its output goes away (`spindle runs list | head -1`)', async () => {
    expect((await stack.api('/v1/workflows/hello/runs', { method: 'POST', body: '{"input":{"name":"Ada"}}' })).status).toBe(202);
    // The reader closes before the CLI has its answer to print: its first write finds the pipe closed (EPIPE).
    const closedEarly = await new Promise<Outcome>((done, fail) => {
      const child = spawn(process.execPath, [BIN, 'runs', 'list'], { cwd: work, env: cliEnv({}), stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', fail);
      child.on('close', (code) => done({ code, stdout: '', stderr }));
    });
    expect(closedEarly).toEqual({ code: 0, stdout: '', stderr: '' });
    // As a shell runs it: `head` keeps the first line, and the pipeline (the CLI's status with pipefail) succeeds.
    const line = `set -o pipefail; "${process.execPath}" "${BIN}" runs list | head -n 1`;
    const piped = await outcomeOf(spawn('bash', ['-c', line], { cwd: work, env: cliEnv({}), stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(piped).toMatchObject({ code: 0, stderr: '' });
    expect(lines(piped.stdout)).toHaveLength(1);
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

  /**
   * `spindle run <workflow> --follow` on a pseudo-terminal (`script`; -e exits with the CLI's own code):
   * `waiting` resolves once the tree asks for a person, `exited` with the exit code.
   */
  const followOnTerminal = (workflow: string) => {
    const command = `${process.execPath} ${BIN} run ${workflow} --follow`;
    const drawn = { screen: '' };
    let shown: () => void;
    const waiting = new Promise<void>((r) => (shown = r));
    const exited = new Promise<number | null>((done, fail) => {
      const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: work, env: cliEnv({}) });
      child.stdout.on('data', (chunk: Buffer) => {
        drawn.screen += chunk.toString();
        if (drawn.screen.includes('waiting for a person')) shown();
      });
      child.on('error', fail);
      child.on('close', done);
    });
    return { drawn, waiting, exited };
  };
  /** The last frame the tree drew, one line per row. */
  const finalFrameOf = (screen: string) =>
    (screen.split(`${ESC}[0J`).at(-1) ?? '')
      .replace(`${ESC}[?25h`, '')
      .split(/\r?\n/)
      .map((l) => l.replace(/\r/g, ''))
      .filter(Boolean);

  it('draws the run as a tree that updates in place on a terminal, waiting for a person and then done', async () => {
    const { drawn, waiting, exited } = followOnTerminal('ask');
    await waiting;
    const requestId = /spindle requests answer (\S+)/.exec(drawn.screen)?.[1] ?? 'none drawn';
    expect((await spindle(['requests', 'answer', requestId, '--text', 'amber'])).code).toBe(0);
    expect(await exited).toBe(0);

    // The waiting frame was drawn, then the cursor moved back up over it and the screen below was cleared.
    expect(drawn.screen).toMatch(new RegExp(`${ESC}\\[\\d+A\r${ESC}\\[0J`));
    const finalFrame = finalFrameOf(drawn.screen);
    expect(finalFrame[0]).toMatch(/^ask v1 {2}[0-9A-Z]{26}\s+completed\s+0 tok\s+\$0\.00\s+wall \S+ \S+( · working \S+ \S+)?$/);
    expect(finalFrame.slice(1).map((l) => l.replace(/\s+(wall|waited) .*$/, '').replace(/\s+/g, ' '))).toEqual([
      ' ✓ ask (human) completed',
      ' ✓ input (request) completed',
      ' ✓ done (set) completed',
    ]);
    expect(finalFrame[2]).toMatch(/^ {4}✓ input/);
  });

  it('gives one wall and one working time for a run that waited for a person: the runs list, the trace and the CLI agree', async () => {
    const { drawn, waiting, exited } = followOnTerminal('ask');
    await waiting;
    const runId = /ask v1 {2}([0-9A-Z]{26})/.exec(drawn.screen)?.[1] ?? 'none drawn';
    const [request] = await pendingRequests(runId);
    // The person takes a while: a wait long enough to tell apart from the run's own work.
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await spindle(['requests', 'answer', request.requestId, '--text', 'amber'])).code).toBe(0);
    expect(await exited).toBe(0);

    // The runs list (the projection), once it has folded the end.
    const { wallMs, workingMs } = await eventually(async () => {
      const res = await stack.api(`/v1/runs?workflow=ask&limit=50`);
      const { runs } = (await res.json()) as { runs: Array<{ runId: string; status: string; wallMs: number; workingMs: number }> };
      const run = runs.find((r) => r.runId === runId);
      if (run?.status !== 'completed') throw new Error(`run ${runId} is not listed completed yet`);
      return run;
    });
    const trace = (await (await stack.api(`/v1/runs/${runId}/trace`)).json()) as {
      run: { wallMs: number; workingMs: number };
      spans: Array<{ kind: string; nodeId: string | null; durationMs: number | null; workingMs: number | null }>;
    };
    const waited = trace.spans.find((s) => s.kind === 'request')!.durationMs!;
    // Working time leaves the wait out: the wall time is at least the work plus the person's wait.
    expect(waited).toBeGreaterThanOrEqual(1_500);
    expect(workingMs).toBeLessThanOrEqual(wallMs - waited);
    expect(trace.run).toMatchObject({ wallMs, workingMs });
    expect(trace.spans.find((s) => s.kind === 'run')).toMatchObject({ durationMs: wallMs, workingMs });
    const asked = trace.spans.find((s) => s.kind === 'node' && s.nodeId === 'ask')!;
    expect(asked.workingMs).toBeLessThanOrEqual(asked.durationMs! - waited);

    // The CLI: the tree's header, `runs get` and `runs list` print those very numbers.
    const frame = finalFrameOf(drawn.screen);
    expect(frame[0]).toMatch(
      new RegExp(`completed\\s+0 tok\\s+\\$0\\.00\\s+wall ${humanDuration(wallMs)} · working ${humanDuration(workingMs)}$`),
    );
    expect(frame).toContainEqual(expect.stringMatching(new RegExp(`input \\(request\\)\\s+completed\\s+waited ${humanDuration(waited)}$`)));
    const got = (await spindle(['runs', 'get', runId])).stdout;
    expect(got).toMatch(new RegExp(`^wall time\\s+${humanDuration(wallMs)}$`, 'm'));
    expect(got).toMatch(new RegExp(`^working time\\s+${humanDuration(workingMs)} \\(`, 'm'));
    expect((await spindle(['runs', 'list', '--workflow', 'ask', '--limit', '50'])).stdout).toMatch(
      new RegExp(`^${runId}\\s+ask v1\\s+completed\\s+\\S+\\s+${humanDuration(wallMs)}\\s+${humanDuration(workingMs)}\\s`, 'm'),
    ); // `spindle events`: the run's and the node's ends give the same wall and working time.
    const eventLines = lines((await spindle(['events', runId])).stdout);
    expect(eventLines.at(-1)).toMatch(
      new RegExp(`^#\\d+ run\\.completed {2}wall ${humanDuration(wallMs)}, working ${humanDuration(workingMs)}, 0 tok`),
    );
    expect(eventLines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^#\\d+ node\\.completed root/ask {2}wall ${humanDuration(asked.durationMs!)}, working ${humanDuration(asked.workingMs!)} `,
        ),
      ),
    );
  });

  it('shows a thread and its state, pauses a schedule, and receives a webhook delivery with webhooks listen', async () => {
    const post = async <T>(path: string, body: unknown) =>
      (await (await stack.api(path, { method: 'POST', body: JSON.stringify(body) })).json()) as T;
    const { threadId } = await post<{ threadId: string }>('/v1/threads', { metadata: { user: 'ada' } });
    const { runId } = await post<{ runId: string }>(`/v1/threads/${threadId}/runs`, { workflow: 'hello', input: { name: 'Ada' } });
    await eventually(async () => expect(await (await stack.api(`/v1/threads/${threadId}`)).json()).toMatchObject({ stateFromRun: runId }));
    const shown = await spindle(['threads', 'show', threadId]);
    expect(shown.code).toBe(0);
    expect(lines(shown.stdout)[0]).toBe(`${threadId}  idle, 1 run(s), state from ${runId}`);
    expect(lines(shown.stdout)).toContainEqual(expect.stringMatching(new RegExp(`^1\\s+${runId}\\s+hello\\s+completed\\s+reject\\s`)));
    const state = await spindle(['threads', 'state', threadId]);
    expect(JSON.parse(state.stdout)).toMatchObject({ greeting: 'Hello Ada', answer: expect.stringContaining('Ada') });

    const { scheduleId } = await post<{ scheduleId: string }>('/v1/schedules', { cron: '0 3 1 1 *', timezone: 'UTC', workflow: 'hello' });
    expect(await spindle(['schedules', 'pause', scheduleId])).toMatchObject({ code: 0, stdout: `${scheduleId} paused\n` });
    expect(await (await stack.api(`/v1/schedules/${scheduleId}`)).json()).toMatchObject({ paused: true, upcoming: [] });
    const detail = await spindle(['schedules', 'show', scheduleId]);
    expect(lines(detail.stdout).slice(0, 3)).toEqual([
      `${scheduleId}  paused`,
      '  cron 0 3 1 1 * (UTC), runs hello latest, overlap skip, catch-up latest',
      '  next firings: none while paused',
    ]);

    // A receiver here, subscribed while it runs: it prints the delivery, ends after one, and unsubscribes.
    const listener = spawn(
      process.execPath,
      [BIN, 'webhooks', 'listen', '--workflow', 'hello', '--events', 'run.completed', '--count', '1'],
      {
        cwd: work,
        env: cliEnv({}),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let heard = '';
    let noted = '';
    listener.stdout.on('data', (chunk: Buffer) => (heard += chunk.toString()));
    const listening = new Promise<void>((ready) =>
      listener.stderr.on('data', (chunk: Buffer) => ((noted += chunk.toString()), noted.includes('listening on') && ready())),
    );
    const exited = new Promise<number | null>((done) => listener.on('close', done));
    await listening;
    expect(noted).toMatch(/^spindle: listening on http:\/\/127\.0\.0\.1:\d+\/spindle-webhook as webhook wh_\w+ \(secret whsec_/);
    // A forged delivery (signed with another secret) and an unsigned one are refused, and do not count.
    const receiver = /listening on (\S+)/.exec(noted)![1];
    const forged = JSON.stringify({
      id: 'whd_forged',
      type: 'run.completed',
      createdAt: new Date().toISOString(),
      data: { runId: 'run_forged', workflow: { name: 'hello', version: 1 }, threadId: null, scheduleId: null, output: {} },
    });
    const now = Math.floor(Date.now() / 1_000);
    const forgedAnswer = await fetch(receiver, {
      method: 'POST',
      body: forged,
      headers: { 'spindle-signature': signWebhook('whsec_other', forged, now) },
    });
    expect({ status: forgedAnswer.status, text: await forgedAnswer.text() }).toEqual({ status: 401, text: 'signature mismatch\n' });
    expect((await fetch(receiver, { method: 'POST', body: forged })).status).toBe(401);
    const followed = await spindle(['--json', 'run', 'hello', '--input', '{"name":"Hook"}', '--follow']);
    const hookRun = ndjson(followed.stdout)[0].runId;
    expect({ code: await exited, noted: lines(noted).slice(1) }).toEqual({
      code: 0,
      noted: [
        'spindle: refused (401) a delivery: Spindle-Signature mismatch',
        'spindle: refused (401) a delivery: Spindle-Signature missing',
      ],
    });
    expect(lines(heard)).toEqual([
      'run.completed  run run_forged  hello v1  output keys -  (refused: Spindle-Signature mismatch)',
      'run.completed  run run_forged  hello v1  output keys -  (refused: Spindle-Signature missing)',
      expect.stringMatching(new RegExp(`^run\\.completed {2}run ${hookRun} {2}hello v1 {2}output keys [^(]+$`)),
    ]);
    expect(await (await stack.api('/v1/webhooks')).json()).toEqual({ webhooks: [] });
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
