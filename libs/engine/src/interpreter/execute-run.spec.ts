import { PublicError, SpindleError } from '@spindle/contracts';
import { validateDefinition } from '../definition/validate-definition';
import { recordingEnvironment, scriptedModel } from '../testing/in-process-ports';
import { executeRun } from './execute-run';

const start = (definition: unknown, state: Record<string, unknown> = { input: { name: 'Ada' } }) => ({
  definition: validateDefinition(definition),
  state,
  attempt: 1,
  worker: 'w1',
});

describe('executeRun', () => {
  it('runs set → condition → llm, writing deltas, child model spans and totals', async () => {
    const model = scriptedModel(['Hello there Ada']);
    const { env, events, tokens } = recordingEnvironment({ model });
    const outcome = await executeRun(
      start({
        kind: 'graph',
        nodes: [
          { id: 'greet', type: 'set', values: { greeting: 'hi {{input.name}}' } },
          { id: 'long', type: 'condition', expression: 'size(greeting) > 3' },
          {
            id: 'reply',
            type: 'llm',
            model: 'offline:echo',
            system: 'be brief',
            prompt: 'say {{greeting}}',
            output_key: 'answer',
            stream: true,
          },
          { id: 'short', type: 'set', values: { answer: 'short' } },
        ],
        edges: [
          { from: 'greet', to: 'long' },
          { from: 'long', to: 'reply', handle: 'true' },
          { from: 'long', to: 'short', handle: 'false' },
        ],
      }),
      env,
    );

    expect(outcome).toMatchObject({
      status: 'completed',
      output: { greeting: 'hi Ada', answer: 'Hello there Ada' },
      usage: { totalTokens: 6 },
    });
    expect(events.map((e) => `${e.type}:${e.nodeId ?? ''}`)).toEqual([
      'run.started:',
      'node.started:greet',
      'node.completed:greet',
      'checkpoint.saved:',
      'node.started:long',
      'node.completed:long',
      'checkpoint.saved:',
      'node.started:reply',
      'model.started:reply',
      'model.completed:reply',
      'node.completed:reply',
      'checkpoint.saved:',
      'run.completed:',
    ]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const [greetDone] = events.filter((e) => e.type === 'node.completed');
    expect(greetDone.data).toMatchObject({ output: { greeting: 'hi Ada' } });
    const replyStarted = events.find((e) => e.type === 'node.started' && e.nodeId === 'reply');
    expect(replyStarted?.data).toEqual({ nodeType: 'llm', input: { model: 'offline:echo', system: 'be brief', prompt: 'say hi Ada' } });
    const modelDone = events.find((e) => e.type === 'model.completed');
    expect(modelDone?.parentSpanId).toBe(replyStarted?.spanId);
    expect(modelDone?.path).toBe('root/reply');
    expect(model.requests[0]).toMatchObject({ system: 'be brief', messages: [{ role: 'user', content: 'say hi Ada' }], stream: true });
    expect(tokens.map((t) => t.text).join('')).toBe('Hello there Ada');
    expect(new Set(tokens.map((t) => t.afterSeq))).toEqual(new Set([replyStarted?.seq]));
  });

  it('follows the false handle and ends where a node has no edge', async () => {
    const { env, events } = recordingEnvironment();
    const outcome = await executeRun(
      start({
        kind: 'graph',
        nodes: [
          { id: 'check', type: 'condition', expression: 'input.name == "Bob"' },
          { id: 'bob', type: 'set', values: { who: 'bob' } },
        ],
        edges: [{ from: 'check', to: 'bob', handle: 'true' }],
      }),
      env,
    );
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(events.find((e) => e.type === 'node.completed')?.data).toMatchObject({ handle: 'false', output: {} });
    expect(events.some((e) => e.nodeId === 'bob')).toBe(false);
  });

  it('redacts a user function error to its type and a correlation id, but shows a PublicError', async () => {
    const { env, events, redacted } = recordingEnvironment({
      functions: {
        leaky: () => {
          throw new TypeError('password=hunter2');
        },
      },
    });
    const outcome = await executeRun(start({ kind: 'graph', nodes: [{ id: 'f', type: 'function', function: 'leaky' }] }), env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'function_failed', nodeId: 'f', correlationId: 'corr-1' } });
    expect(JSON.stringify(events)).not.toContain('hunter2');
    expect(redacted[0]).toMatchObject({ id: 'corr-1' });

    const shown = recordingEnvironment({
      functions: {
        f: () => {
          throw new PublicError('order 42 not found');
        },
      },
    });
    const failed = await executeRun(start({ kind: 'graph', nodes: [{ id: 'f', type: 'function', function: 'f' }] }), shown.env);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'function_failed', message: 'order 42 not found' } });
    expect(shown.events.map((e) => e.type)).toEqual(['run.started', 'node.started', 'node.failed', 'run.failed']);
  });

  it('passes rendered args to functions and merges their result', async () => {
    const { env } = recordingEnvironment({ functions: { add: ({ args }) => ({ sum: (args.a as number) + (args.b as number) }) } });
    const outcome = await executeRun(
      start({ kind: 'graph', nodes: [{ id: 'f', type: 'function', function: 'add', args: { a: '{{x}}', b: 2 } }] }, { x: 40 }),
      env,
    );
    expect(outcome).toMatchObject({ status: 'completed', output: { x: 40, sum: 42 } });
  });

  it('fails the node when the model provider fails, recording a failed model span', async () => {
    const { env, events } = recordingEnvironment({ model: scriptedModel([new SpindleError('provider_error', 'HTTP 500 from provider')]) });
    const outcome = await executeRun(
      start({ kind: 'graph', nodes: [{ id: 'ask', type: 'llm', model: 'compatible:m', prompt: 'hi' }] }),
      env,
    );
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'provider_error', nodeId: 'ask' } });
    expect(events.map((e) => e.type)).toEqual([
      'run.started',
      'node.started',
      'model.started',
      'model.failed',
      'node.failed',
      'run.failed',
    ]);
  });

  it('fails a node whose template reads a missing key, after recording its start', async () => {
    const { env, events } = recordingEnvironment();
    const outcome = await executeRun(start({ kind: 'graph', nodes: [{ id: 's', type: 'set', values: { a: '{{nope}}' } }] }), env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'template_error', nodeId: 's' } });
    expect(events[1]).toMatchObject({ type: 'node.started', data: { input: null } });
  });

  it('bounds cycles with maxSteps', async () => {
    const { env } = recordingEnvironment({ maxSteps: 5 });
    const outcome = await executeRun(
      start({
        kind: 'graph',
        nodes: [
          { id: 'a', type: 'set', values: { x: 1 } },
          { id: 'b', type: 'set', values: { y: 1 } },
        ],
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'a' },
        ],
      }),
      env,
    );
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'max_steps_exceeded' } });
  });

  it('ends canceled when the run signal is aborted with a cancel', async () => {
    const controller = new AbortController();
    const { env, events } = recordingEnvironment({
      signal: controller.signal,
      functions: {
        stop: () => {
          controller.abort(new SpindleError('canceled', 'canceled by user'));
          return {};
        },
      },
    });
    const outcome = await executeRun(
      start({
        kind: 'graph',
        nodes: [
          { id: 'f', type: 'function', function: 'stop' },
          { id: 'g', type: 'set', values: { x: 1 } },
        ],
        edges: [{ from: 'f', to: 'g' }],
      }),
      env,
    );
    expect(outcome).toMatchObject({ status: 'canceled' });
    expect(events.at(-1)?.type).toBe('run.canceled');
    expect(events.some((e) => e.nodeId === 'g')).toBe(false);
  });
});
