import type { RunEvent } from '@spindle/contracts';
import { eventLine, eventLines } from './event-line';

const envelope = { runId: '01M8MZ7GV3CM19TT0MT5MSF778', at: '2026-01-01T00:00:00.000Z', spanId: 's', path: 'root' };
const line = (event: Record<string, unknown>) => eventLine({ ...envelope, ...event } as unknown as RunEvent);

describe('eventLine', () => {
  it('shows seq, type, where and what in one line', () => {
    expect(
      line({
        seq: 1,
        type: 'run.queued',
        data: { workflow: { name: 'hello', version: 1 }, input: { name: 'Ada' }, state: {}, definition: {} },
      }),
    ).toBe('#1 run.queued  hello v1 input {"name": "Ada"}');
    expect(
      line({
        seq: 4,
        nodeId: 'greet',
        path: 'root/greet',
        type: 'node.completed',
        data: { nodeType: 'set', output: { greeting: 'Hi' }, durationMs: 3 },
      }),
    ).toBe('#4 node.completed root/greet  this attempt 3 ms {"greeting": "Hi"}');
    expect(
      line({
        seq: 9,
        nodeId: 'reply',
        path: 'root/reply',
        type: 'model.completed',
        data: {
          model: 'offline:echo',
          text: 'x',
          usage: { inputTokens: 12, outputTokens: 10, totalTokens: 22, costUsd: 0 },
          durationMs: 51.4,
        },
      }),
    ).toBe('#9 model.completed root/reply  offline:echo 51 ms, 22 tok $0');
    expect(line({ seq: 7, type: 'run.awaiting', data: { reason: 'tool_approval', requestIds: ['r1'] } })).toBe(
      '#7 run.awaiting  waiting for a tool approval r1',
    );
    expect(line({ seq: 8, type: 'run.failed', data: { error: { code: 'node_failed', message: 'boom' }, durationMs: 5 } })).toBe(
      '#8 run.failed  node_failed: boom (this attempt 5 ms)',
    );
  });

  it("gives a run's and a node's wall and working time once it has seen them start, as the runs list counts them", () => {
    const at = (ms: number) => new Date(Date.parse(envelope.at) + ms).toISOString();
    const events = [
      { seq: 1, at: at(0), type: 'run.queued', data: { workflow: { name: 'ask', version: 1 }, input: {}, state: {}, definition: {} } },
      { seq: 2, at: at(100), type: 'node.started', nodeId: 'ask', path: 'root/ask', data: { nodeType: 'human', input: {} } },
      {
        seq: 3,
        at: at(300),
        type: 'input.requested',
        nodeId: 'ask',
        path: 'root/ask',
        data: { requestId: 'r1', prompt: 'ok?', form: { kind: 'text' } },
      },
      { seq: 4, at: at(310), type: 'run.awaiting', data: { reason: 'input', requestIds: ['r1'] } },
      { seq: 5, at: at(20_310), type: 'input.answered', nodeId: 'ask', path: 'root/ask', data: { requestId: 'r1', answer: 'yes' } },
      { seq: 6, at: at(20_320), type: 'run.resumed', data: { reason: 'input', attempt: 2 } },
      {
        seq: 7,
        at: at(20_400),
        type: 'node.completed',
        nodeId: 'ask',
        path: 'root/ask',
        data: { nodeType: 'human', output: {}, durationMs: 80 },
      },
      {
        seq: 8,
        at: at(20_500),
        type: 'run.completed',
        data: { output: {}, durationMs: 180, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
      },
    ].map((e) => ({ ...envelope, ...e }) as unknown as RunEvent);
    const line = eventLines();
    const shown = events.map((e) => line(e));
    // The node waited 20 s for its answer (300 → 20,310 ms); the run waited 20.01 s (310 → 20,320 ms).
    expect(shown[6]).toBe('#7 node.completed root/ask  wall 20 s, working 290 ms {}');
    expect(shown[7]).toMatch(/^#8 run\.completed {2}wall 20 s, working 490 ms, 0 tok /);
    // Lines that start after the run did cannot know its start: the runner's measure, named as such.
    const late = eventLines();
    expect(
      events
        .slice(4)
        .map((e) => late(e))
        .at(-1),
    ).toMatch(/^#8 run\.completed {2}this attempt 180 ms, 0 tok /);
  });
});
