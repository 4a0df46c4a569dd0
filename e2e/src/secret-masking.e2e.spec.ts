import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '@spindle/contracts';
import { eventually, rowsOfStack, startStack, type Stack } from '@spindle/testing';

/** Planted secrets: an operator's pattern, the provider key the runner holds, a field the definition names. */
const MARKER = 'ZEBRA-7731-MARK';
const PROVIDER_KEY = 'provider-key-PLANTED-7c1f9e2d';
const PASSWORD = 'hunter2-horse-battery-staple';
const PLANTED = [MARKER, PROVIDER_KEY, PASSWORD];

const workflow = {
  kind: 'graph',
  secrets: ['password'],
  nodes: [
    { id: 'remember', type: 'set', values: { note: '{{input.note}}', password: '{{input.password}}' } },
    { id: 'answer', type: 'llm', model: 'compatible:fake-model', prompt: '{{input.mode}}: {{note}}', output_key: 'answer' },
  ],
  edges: [{ from: 'remember', to: 'answer' }],
};

describe('a secret planted in a run is in no event, trace, stream, table or log line', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      serviceEnv: (service) => ({
        SPINDLE_SECRET_PATTERNS: JSON.stringify(['ZEBRA-[0-9]+-MARK']),
        ...(service === 'runner' ? { OPENAI_COMPATIBLE_API_KEY: PROVIDER_KEY } : {}),
      }),
      // The provider repeats what it knows back, in a reply and in an error. (It never learns the
      // password: a field the definition names secret is masked in the input the run reads.)
      reply: (body) =>
        JSON.stringify(body).includes('fail:')
          ? { text: '', status: 400, error: `key ${PROVIDER_KEY} refused for ${MARKER}` }
          : { text: `You said ${MARKER}; your key is ${PROVIDER_KEY}` },
    });
    expect((await stack.api('/v1/workflows/secretive', { method: 'PUT', body: JSON.stringify(workflow) })).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const run = async (mode: string) => {
    const input = { mode, note: `the code is ${MARKER}`, password: PASSWORD };
    const res = await stack.api('/v1/workflows/secretive/runs', { method: 'POST', body: JSON.stringify({ input }) });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    return eventually(async () => {
      const { events } = (await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] };
      expect(['run.completed', 'run.failed']).toContain(events.at(-1)?.type);
      return { runId, events };
    });
  };
  const expectNoSecret = (where: string, text: string) => {
    for (const secret of PLANTED) {
      const at = text.indexOf(secret);
      expect({ where, found: at < 0 ? null : text.slice(Math.max(0, at - 120), at + secret.length + 40) }).toEqual({ where, found: null });
    }
  };

  it('masks them everywhere, while the provider did get its key', async () => {
    const ok = await run('reply');
    const failed = await run('fail');
    expect(ok.events.at(-1)?.type).toBe('run.completed');
    expect(failed.events.at(-1)).toMatchObject({ type: 'run.failed' });
    // The runner used the key: masking hides it from what is written down, not from the provider.
    expect(stack.fake.calls.map((c) => c.headers.authorization)).toContain(`Bearer ${PROVIDER_KEY}`);
    // A field the definition names secret is masked before the run reads it: the password never left.
    expect(JSON.stringify(stack.fake.calls.map((c) => c.body))).not.toContain(PASSWORD);
    // What the log holds instead.
    expect(JSON.stringify(ok.events)).toContain('[masked]');

    for (const { runId } of [ok, failed]) {
      expectNoSecret('events (export)', await (await stack.api(`/v1/runs/${runId}/events`)).text());
      const trace = await eventually(async () => {
        const res = await stack.api(`/v1/runs/${runId}/trace`);
        expect(res.status).toBe(200);
        return res.text();
      });
      expectNoSecret('trace', trace);
      const { frames } = await stack.sse(`/v1/runs/${runId}/events`, {}, (f) => !/"type":"run\.(completed|failed)"/.test(f.data));
      expectNoSecret('SSE', frames.map((f) => f.data).join('\n'));
    }

    // The stream itself, message by message.
    const stream = await stack.bus.jsm.streams.info(stack.bus.names.eventsStream);
    const raw: string[] = [];
    for (let seq = stream.state.first_seq; seq <= stream.state.last_seq; seq++) {
      const msg = await stack.bus.jsm.streams.getMessage(stack.bus.names.eventsStream, { seq }).catch(() => null);
      if (msg) raw.push(Buffer.from(msg.data).toString('utf8'));
    }
    expect(raw.length).toBeGreaterThan(0);
    expectNoSecret('JetStream', raw.join('\n'));

    // Every row of every table of this stack's schemas (trace, checkpoints, inbox, gateway).
    const tables = await rowsOfStack(stack);
    expect(tables.length).toBeGreaterThan(5);
    for (const t of tables) expectNoSecret(t.table, t.rows.join('\n'));

    // Every line every service logged.
    const logDir = join(__dirname, '..', '..', 'tmp', 'e2e-logs', stack.namespace);
    for (const file of readdirSync(logDir).filter((f) => f.endsWith('.log'))) {
      expectNoSecret(`log ${file}`, readFileSync(join(logDir, file), 'utf8'));
    }
  });
});
