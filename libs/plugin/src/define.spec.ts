import { z } from 'zod';
import { defineFunction, definePlugin, defineTool, PublicError, type FunctionContext } from './index';

const ctx = {} as FunctionContext;

describe('defineFunction', () => {
  it('types args from a zod input and checks the result against a zod output', async () => {
    const lookup = defineFunction({
      input: z.object({ orderId: z.string(), verbose: z.boolean().default(false) }),
      output: z.object({ status: z.enum(['shipped', 'late']) }),
      run: (args) => {
        const id: string = args.orderId;
        const verbose: boolean = args.verbose;
        return { status: id.length > 0 && !verbose ? 'shipped' : 'late' };
      },
    });
    expect(await lookup.run({ orderId: '42', verbose: false }, ctx)).toEqual({ status: 'shipped' });

    defineFunction({
      input: z.object({ orderId: z.string() }),
      // @ts-expect-error the result misses the output schema
      run: () => ({ status: 'lost' }) as { status: number },
      output: z.object({ status: z.string() }),
    });
    defineFunction({
      input: z.object({ orderId: z.string() }),
      run: (args) => {
        // @ts-expect-error no such argument
        void args.customerId;
      },
    });
  });

  it('takes a JSON Schema input, with untyped args, and a plain delta without output', () => {
    const add = defineFunction({
      input: { type: 'object', properties: { a: { type: 'number' } } },
      run: (args) => ({ sum: Number(args.a) + 1 }),
    });
    expect(add.run({ a: 1 }, ctx)).toEqual({ sum: 2 });
    expect(defineFunction({ run: () => undefined }).run({}, ctx)).toBeUndefined();
  });
});

describe('defineTool', () => {
  it('types args and result', async () => {
    const tool = defineTool({
      description: 'Adds',
      input: z.object({ a: z.number(), b: z.number() }),
      output: z.number(),
      retry: { attempts: 2 },
      run: async ({ a, b }, toolCtx) => {
        const callId: string = toolCtx?.callId ?? '';
        return a + b + callId.length;
      },
    });
    expect(await tool.run({ a: 1, b: 2 }, { callId: '' } as never)).toBe(3);
  });
});

describe('definePlugin', () => {
  it('returns the module the runner loads, with its name and version', () => {
    const fn = defineFunction({ run: () => ({}) });
    const typed = defineFunction({ input: z.object({ id: z.string() }), output: z.object({ ok: z.boolean() }), run: () => ({ ok: true }) });
    const tool = defineTool({ input: z.object({ q: z.string() }), run: ({ q }) => q.toUpperCase() });
    const plain = ({ args }: { args: Readonly<Record<string, unknown>> }) => ({ echoed: args });
    const plugin = definePlugin({ name: 'orders', version: '1.2.0', functions: { fn, typed, plain }, tools: { tool } });
    expect(plugin).toEqual({ name: 'orders', version: '1.2.0', functions: { fn, typed, plain }, tools: { tool } });
  });

  it('refuses a plugin without a name or version', () => {
    expect(() => definePlugin({ name: '', version: '1' })).toThrow(/"name"/);
    expect(() => definePlugin({ name: 'x', version: undefined as unknown as string })).toThrow(/"version"/);
  });
});

describe('PublicError', () => {
  it('is named PublicError and carries its data, as the runner recognises it', () => {
    const error = new PublicError('order 42 not found', { orderId: '42' });
    expect(error).toBeInstanceOf(Error);
    expect({ name: error.name, message: error.message, data: error.data }).toEqual({
      name: 'PublicError',
      message: 'order 42 not found',
      data: { orderId: '42' },
    });
  });
});
