import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PublicError, SpindleError } from '@spindle/contracts';
import { loadPlugins } from './plugin-loader';
import { recordingVoice } from './user-code-voice.fixture';

const zod = JSON.stringify(require.resolve('zod'));

/** Writes a plugin; its `seen` export records each try, so a test can count them. */
function plugin(source: string): { path: string; seen: () => unknown[] } {
  const path = join(mkdtempSync(join(tmpdir(), 'spindle-plugin-')), 'plugin.js');
  writeFileSync(path, `const { z } = require(${zod});\nconst seen = exports.seen = [];\n${source}`);
  return { path, seen: () => (require(path) as { seen: unknown[] }).seen };
}

const toolCtx = (signal = new AbortController().signal) => ({
  ...recordingVoice(),
  runId: 'run-1',
  nodeId: 'agent',
  callId: 'call-1',
  signal,
});
const fnCtx = (args: Record<string, unknown>, signal = new AbortController().signal, voice = recordingVoice()) => ({
  ...voice,
  args,
  state: { n: 1 },
  nodeId: 'fn',
  runId: 'run-1',
  signal,
});

describe('plugin input validation', () => {
  const p = plugin(`
    exports.tools = {
      zod_tool: {
        input: z.object({ city: z.string(), days: z.number().int().default(3) }),
        run: (args) => { seen.push(args); return args; },
      },
      json_tool: {
        input: {
          type: 'object',
          properties: { prices: { type: 'array', items: { type: 'number' } }, currency: { type: 'string', default: 'EUR' } },
          required: ['prices'],
          additionalProperties: false,
        },
        retry: { attempts: 3, backoffMs: 1 },
        run: (args) => { seen.push(args); return args; },
      },
    };
    exports.functions = {
      sum: { input: z.object({ xs: z.array(z.number()) }), run: ({ xs }, ctx) => ({ sum: xs.reduce((a, b) => a + b, ctx.state.n - 1) }) },
    };
  `);
  const { tools, functions } = loadPlugins([p.path]);

  it('gives run the parsed zod value, defaults filled in', async () => {
    await expect(tools.call('zod_tool', { city: 'Oslo' }, toolCtx())).resolves.toEqual({ city: 'Oslo', days: 3 });
    await expect(functions.get('sum')?.(fnCtx({ xs: [1, 2, 3] }))).resolves.toEqual({ sum: 6 });
  });

  it('refuses bad zod input with validation_failed naming the field, without calling run', async () => {
    const before = p.seen().length;
    const error = await tools.call('zod_tool', { city: 7 }, toolCtx()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpindleError);
    expect(error).toMatchObject({ code: 'validation_failed', issues: [{ field: 'city' }] });
    expect((error as Error).message).toMatch(/^invalid arguments for tool "zod_tool": city: /);
    await expect(functions.get('sum')?.(fnCtx({ xs: [1, 'two'] }))).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('function "sum": xs[1]:'),
    });
    expect(p.seen().length).toBe(before);
  });

  it('refuses bad JSON Schema input naming the field, and never retries it', async () => {
    const before = p.seen().length;
    await expect(tools.call('json_tool', { prices: [1, 'x'] }, toolCtx())).rejects.toMatchObject({
      code: 'validation_failed',
      issues: [{ field: 'prices[1]', message: 'must be number' }],
    });
    await expect(tools.call('json_tool', {}, toolCtx())).rejects.toMatchObject({
      code: 'validation_failed',
      issues: [{ field: 'prices' }],
    });
    await expect(tools.call('json_tool', { prices: [], extra: 1 }, toolCtx())).rejects.toMatchObject({ issues: [{ field: 'extra' }] });
    expect(p.seen().length).toBe(before);
  });

  it('fills JSON Schema defaults on a copy of the arguments', async () => {
    const args = { prices: [1.5] };
    await expect(tools.call('json_tool', args, toolCtx())).resolves.toEqual({ prices: [1.5], currency: 'EUR' });
    expect(args).toEqual({ prices: [1.5] });
  });
});

describe('plugin timeouts', () => {
  const p = plugin(`
    // Ignores its signal and never settles: only the runner's race can end the call.
    exports.functions = { stuck: { timeoutMs: 20, run: (_args, ctx) => { seen.push(ctx.signal); return new Promise(() => {}); } } };
    exports.tools = { stuck_tool: { timeoutMs: 20, run: (_args, ctx) => { seen.push(ctx.signal); return new Promise(() => {}); } } };
  `);
  const { tools, functions } = loadPlugins([p.path]);

  it('cuts off a function that ignores its signal with node_timeout, aborting that signal', async () => {
    await expect(functions.get('stuck')?.(fnCtx({}))).rejects.toMatchObject({
      code: 'node_timeout',
      message: 'function "stuck" timed out after 20 ms',
    });
    expect((p.seen().at(-1) as AbortSignal).aborted).toBe(true);
  });

  it('cuts off a tool with tool_failed "timed out after N ms"', async () => {
    await expect(tools.call('stuck_tool', {}, toolCtx())).rejects.toMatchObject({
      code: 'tool_failed',
      message: 'tool "stuck_tool" timed out after 20 ms',
    });
  });

  it("ends a call at once when the run aborts, with the run's reason", async () => {
    const run = new AbortController();
    const call = tools.call('stuck_tool', {}, toolCtx(run.signal));
    run.abort(new SpindleError('canceled', 'run canceled'));
    await expect(call).rejects.toMatchObject({ code: 'canceled' });
  });
});

describe('plugin retries', () => {
  const p = plugin(`
    exports.tools = {
      flaky: {
        retry: { attempts: 3, backoffMs: 1 },
        run: (args, ctx) => {
          seen.push(ctx.attempt);
          if (ctx.attempt < args.okAt) throw new Error('flaky ' + ctx.attempt);
          return { attempt: ctx.attempt };
        },
      },
      // Calls back into the test (arguments go to run as given: this tool has no input schema).
      calls_back: {
        retry: { attempts: 5, backoffMs: 1 },
        run: (args, ctx) => { seen.push(ctx.attempt); args.onTry(); throw new Error('failed'); },
      },
      picky: {
        retry: { attempts: 5, backoffMs: 1, retryOn: (e) => e.transient === true },
        run: () => { seen.push('picky'); const e = new Error('permanent'); e.name = 'PublicError'; throw e; },
      },
    };
    exports.functions = {
      slow_then_ok: {
        timeoutMs: 20,
        retry: { attempts: 2, backoffMs: 1 },
        run: (_a, ctx) => ctx.attempt === 1 ? new Promise(() => {}) : { ok: ctx.attempt },
      },
    };
  `);
  const { tools, functions } = loadPlugins([p.path]);

  it('retries a failing try and returns the first success', async () => {
    await expect(tools.call('flaky', { okAt: 3 }, toolCtx())).resolves.toEqual({ attempt: 3 });
    expect(p.seen().slice(-3)).toEqual([1, 2, 3]);
  });

  it('rethrows the last error as it is once the tries are used up', async () => {
    const before = p.seen().length;
    const error = await tools.call('flaky', { okAt: 99 }, toolCtx()).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(SpindleError);
    expect((error as Error).message).toBe('flaky 3');
    expect(p.seen().length - before).toBe(3);
  });

  it('retries a timed-out try', async () => {
    await expect(functions.get('slow_then_ok')?.(fnCtx({}))).resolves.toEqual({ ok: 2 });
  });

  it('does not retry what retryOn refuses, and makes a named PublicError public', async () => {
    const before = p.seen().length;
    const error = await tools.call('picky', {}, toolCtx()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublicError);
    expect((error as Error).message).toBe('permanent');
    expect(p.seen().length - before).toBe(1);
  });

  it('stops retrying once the run is aborted', async () => {
    const run = new AbortController();
    const before = p.seen().length;
    const onTry = () => run.abort(new SpindleError('canceled', 'run canceled'));
    await expect(tools.call('calls_back', { onTry }, toolCtx(run.signal))).rejects.toMatchObject({ code: 'canceled' });
    expect(p.seen().length - before).toBe(1);
  });
});

describe('what plugin code says, and its output schema', () => {
  const p = plugin(`
    exports.tools = {
      speaks: {
        retry: { attempts: 2, backoffMs: 1 },
        output: z.object({ status: z.enum(['shipped', 'late']) }),
        run: async (args, ctx) => {
          if (ctx.attempt === 1) throw new Error('first try fails');
          await ctx.emit('order.looked_up', { id: args.id });
          await ctx.reportUsage({ costUsd: 0.002, units: { lookups: 1 } });
          return { status: args.status };
        },
      },
    };
    exports.functions = {
      typed_delta: {
        output: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
        run: (args) => args.bad ? { total: 'many' } : { total: 3 },
      },
    };
  `);
  const { tools, functions } = loadPlugins([p.path]);

  it('gives the tool emit and reportUsage, and records its failed try', async () => {
    const voice = recordingVoice();
    await expect(tools.call('speaks', { id: 7, status: 'late' }, { ...toolCtx(), ...voice })).resolves.toEqual({ status: 'late' });
    expect(voice.said).toEqual([
      { attempt: { attempt: 1, error: expect.objectContaining({ message: 'first try fails' }), retryInMs: 1 } },
      { emit: { name: 'order.looked_up', data: { id: 7 } } },
      { usage: { costUsd: 0.002, units: { lookups: 1 } } },
    ]);
  });

  it('fails a result its output schema refuses, naming the field, with tool_failed or function_failed', async () => {
    await expect(tools.call('speaks', { id: 7, status: 'lost' }, toolCtx())).rejects.toMatchObject({
      code: 'tool_failed',
      message: expect.stringMatching(/tool "speaks" returned a result its "output" schema refuses: status/),
    });
    await expect(functions.get('typed_delta')?.(fnCtx({}))).resolves.toEqual({ total: 3 });
    await expect(functions.get('typed_delta')?.(fnCtx({ bad: true }))).rejects.toMatchObject({
      code: 'function_failed',
      message: expect.stringMatching(/function "typed_delta" returned a result its "output" schema refuses: total/),
    });
  });
});
