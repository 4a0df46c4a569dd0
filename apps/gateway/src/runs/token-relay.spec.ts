import type { RunEvent, TokenDelta } from '@spindle/contracts';
import { TokenRelay } from './token-relay';

const token = (spanId: string, afterSeq: number, index: number, delta: string): TokenDelta => ({
  runId: 'r',
  nodeId: 'n',
  spanId,
  afterSeq,
  index,
  delta,
});
const event = (type: RunEvent['type'], seq: number, spanId: string) => ({ type, seq, spanId }) as RunEvent;

describe('TokenRelay', () => {
  it('holds tokens until their node.started went out, in chunk order, and drops them after the node ended', () => {
    const sent: string[] = [];
    const relay = new TokenRelay((t) => sent.push(t.delta), 0);
    relay.onToken(token('a', 3, 1, 'world'));
    relay.onToken(token('a', 3, 0, 'hello '));
    expect(sent).toEqual([]);
    relay.afterEvent(event('run.started', 2, 'root'));
    expect(sent).toEqual([]);
    relay.afterEvent(event('node.started', 3, 'a'));
    expect(sent).toEqual(['hello ', 'world']);
    relay.onToken(token('a', 3, 2, '!'));
    relay.afterEvent(event('node.completed', 4, 'a'));
    relay.onToken(token('a', 3, 3, 'late'));
    expect(sent).toEqual(['hello ', 'world', '!']);
  });

  it('forwards at once on a stream resumed after the node started', () => {
    const sent: string[] = [];
    const relay = new TokenRelay((t) => sent.push(t.delta), 10);
    relay.onToken(token('b', 7, 0, 'resumed'));
    expect(sent).toEqual(['resumed']);
  });
});
