import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@spindle/contracts';
import { deriveRunView } from './run-view';
import { envelope, queuedAndStarted } from './support-node.fixture';
import { saidLine, userCodeFacts, userCodeSaid } from './user-code-spans';

const usage = (costUsd: number) => ({ inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd });

const events = [
  ...queuedAndStarted,
  {
    ...envelope(3, 'model-1', 'node-1'),
    type: 'model.completed',
    data: { model: 'offline:echo', text: '', usage: { inputTokens: 4, outputTokens: 1, totalTokens: 5, costUsd: 0.5 }, durationMs: 1 },
  },
  { ...envelope(4, 'tool-1', 'node-1'), type: 'tool.called', data: { name: 'lookup_order', callId: 'c1', arguments: {} } },
  {
    ...envelope(5, 'try-1', 'tool-1'),
    type: 'attempt.failed',
    data: { kind: 'tool', name: 'lookup_order', callId: 'c1', attempt: 1, error: { code: 'tool_failed', message: 'busy' }, retryInMs: 200 },
  },
  {
    ...envelope(6, 'use-1', 'tool-1'),
    type: 'usage.reported',
    data: {
      usage: usage(0.0001),
      units: { lookups: 1 },
      label: 'order service lookup',
      source: { kind: 'tool', name: 'lookup_order', callId: 'c1' },
      runUsage: usage(0.5001),
    },
  },
  { ...envelope(7, 'ev-1', 'tool-1'), type: 'custom', data: { name: 'order.looked_up', data: { orderId: 'A-1002' } } },
  { ...envelope(8, 'tool-1', 'node-1'), type: 'tool.returned', data: { name: 'lookup_order', callId: 'c1', result: {}, durationMs: 3 } },
] as unknown as RunEvent[];

describe('what user code said, in the console', () => {
  const view = deriveRunView(events);
  const node = view.spans.find((s) => s.kind === 'node')!;

  it('hangs each thing said under its tool call, and lists them on the node in log order', () => {
    const tool = view.spans.find((s) => s.kind === 'tool')!;
    expect(tool.children.map((k) => view.byKey.get(k)?.kind)).toEqual(['attempt', 'usage', 'custom']);
    expect(userCodeSaid(node, view).map(saidLine)).toEqual([
      'try 1 failed: tool_failed: busy, retried in 200 ms',
      'spent $0.00010 1 lookups (order service lookup)',
      'event order.looked_up',
    ]);
  });

  it('shows a report’s cost, units and label, a failed try’s error and wait, and counts the report in the run’s cost', () => {
    const [attempt, reported, custom] = userCodeSaid(node, view);
    expect(attempt.status).toBe('failed');
    expect(userCodeFacts(reported)).toEqual([
      ['by', 'tool lookup_order (call c1)'],
      ['cost', '$0.00010'],
      ['units', '1 lookups'],
      ['label', 'order service lookup'],
    ]);
    expect(userCodeFacts(attempt)).toEqual([
      ['by', 'tool lookup_order (call c1)'],
      ['attempt', '1'],
      ['error', 'tool_failed: busy'],
      ['retry in', '200 ms'],
    ]);
    expect(custom.output).toEqual({ orderId: 'A-1002' });
    expect(view.usage.costUsd).toBe(0.5001);
  });
});
