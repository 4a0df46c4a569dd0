import type { RunEvent } from '@spindle/contracts';
import { eventLine } from './event-line';

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
    ).toBe('#4 node.completed root/greet  3 ms {"greeting": "Hi"}');
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
      '#8 run.failed  node_failed: boom',
    );
  });
});
