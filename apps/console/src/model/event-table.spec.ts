import type { RunEvent } from '@spindle/contracts';
import { describe, expect, it } from 'vitest';
import { eventRows, eventTypesOf, rowAtCursor } from './event-table';

let seq = 0;
const ev = (ms: number, type: string, nodeId?: string, path = nodeId ? `root/${nodeId}` : 'root') =>
  ({
    runId: 'r',
    seq: ++seq,
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)).toISOString(),
    spanId: 's',
    path,
    nodeId,
    type,
    data: {},
  }) as unknown as RunEvent;

function log(): RunEvent[] {
  seq = 0;
  return [
    ev(0, 'run.queued'),
    ev(5, 'run.started'),
    ev(10, 'node.started', 'plan'),
    ev(30, 'node.completed', 'plan'),
    ev(31, 'checkpoint.saved'),
    ev(40, 'node.started', 'search', 'root/split[a]/search'),
    ev(90, 'custom'),
  ];
}

describe('the raw event table', () => {
  it('keeps every event in seq order with its time since the first', () => {
    const rows = eventRows(log(), { type: '', where: '' });
    expect(rows.map((r) => [r.seq, r.type, r.offsetMs])).toEqual([
      [1, 'run.queued', 0],
      [2, 'run.started', 5],
      [3, 'node.started', 10],
      [4, 'node.completed', 30],
      [5, 'checkpoint.saved', 31],
      [6, 'node.started', 40],
      [7, 'custom', 90],
    ]);
  });

  it('filters by a type or a family, and by node id or path, ignoring case', () => {
    expect(eventRows(log(), { type: 'node.', where: '' }).map((r) => r.seq)).toEqual([3, 4, 6]);
    expect(eventRows(log(), { type: 'node.started', where: '' }).map((r) => r.seq)).toEqual([3, 6]);
    expect(eventRows(log(), { type: '', where: 'SPLIT[a]' }).map((r) => r.seq)).toEqual([6]);
    expect(eventRows(log(), { type: 'node.', where: 'plan' }).map((r) => r.seq)).toEqual([3, 4]);
  });

  it('offers the families first, then each type', () => {
    expect(eventTypesOf(log())).toEqual([
      'checkpoint.',
      'node.',
      'run.',
      'checkpoint.saved',
      'custom',
      'node.completed',
      'node.started',
      'run.queued',
      'run.started',
    ]);
  });

  it('finds the row of the replay cursor: the last kept event at or before it', () => {
    const nodes = eventRows(log(), { type: 'node.', where: '' });
    expect([rowAtCursor(nodes, 2), rowAtCursor(nodes, 3), rowAtCursor(nodes, 5), rowAtCursor(nodes, 7)]).toEqual([-1, 0, 1, 2]);
  });
});
