import { connectBus, subscribeTokenDeltas, type Bus } from '@spindle/bus';
import type { TokenDelta } from '@spindle/contracts';
import { eventually, testEnv, testNamespace } from '@spindle/testing';
import { TokenPublisher } from './token-publisher';

describe('TokenPublisher on core NATS', () => {
  let bus: Bus;

  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'token-publisher-test' });
  });
  afterAll(async () => {
    await bus.close();
  });

  it('keeps each call and each part in its own chunks, numbering a call’s chunks from 0', async () => {
    const received: TokenDelta[] = [];
    const subscription = subscribeTokenDeltas(bus, 'run-tokens', { onMessage: (t) => received.push(t) });
    await bus.nc.flush();
    // A large maxChars and delay: only a change of call or part, or the call's end, sends.
    const publisher = new TokenPublisher(bus, 'run-tokens', { maxChars: 1000, maxDelayMs: 60_000 });
    const push = (callSeq: number, part: 'text' | 'reasoning', text: string) =>
      publisher.push({ nodeId: 'agent', spanId: 'span-1', afterSeq: 3, callSeq, part, text });
    push(4, 'reasoning', 'Think ');
    push(4, 'reasoning', 'first. ');
    push(4, 'text', 'Then ');
    push(4, 'text', 'answer.');
    publisher.flush('span-1');
    push(9, 'text', 'Second call.');
    publisher.close();
    await eventually(async () => expect(received).toHaveLength(3));
    subscription.close();
    expect(received.map(({ delta, part, index, callSeq, callIndex }) => ({ delta, part, index, callSeq, callIndex }))).toEqual([
      { delta: 'Think first. ', part: 'reasoning', index: 0, callSeq: 4, callIndex: 0 },
      { delta: 'Then answer.', part: undefined, index: 1, callSeq: 4, callIndex: 1 },
      { delta: 'Second call.', part: undefined, index: 2, callSeq: 9, callIndex: 0 },
    ]);
  });
});
