import { propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { RunControl, TokenDelta } from '@spindle/contracts';
import { testEnv, testNamespace } from '@spindle/testing';
import { connectBus, type Bus } from './bus-connection';
import { deleteStreams, provisionStreams } from './provision-streams';
import { EMPTY_LOG, RunLogWriter } from './run-log.writer';
import { publishRunControl, publishTokenDelta, subscribeRunControl, subscribeTokenDeltas } from './run-live-channels';

const token = (runId: string, index: number): TokenDelta => ({ runId, nodeId: 'n', spanId: 's1', afterSeq: 2, index, delta: `t${index}` });

/** Tokens and control messages: typed both ways, and nothing a stranger publishes reaches a handler. */
describe('the live channels of a run', () => {
  let bus: Bus;
  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'live-channels-test' });
    await provisionStreams(bus);
  });
  afterAll(async () => {
    await deleteStreams(bus);
    await bus.close();
  });

  it("delivers a run's tokens in order and drops garbage and another run's tokens on its subject", async () => {
    const received: TokenDelta[] = [];
    const invalid: string[] = [];
    const sub = subscribeTokenDeltas(bus, 'run-live-a', {
      onMessage: (t) => received.push(t),
      onInvalid: (_subject, reason) => invalid.push(reason),
    });
    bus.nc.publish(bus.names.tokenSubject('run-live-a'), 'not json');
    bus.nc.publish(bus.names.tokenSubject('run-live-a'), JSON.stringify({ runId: 'run-live-a', delta: 1 }));
    bus.nc.publish(bus.names.tokenSubject('run-live-a'), JSON.stringify(token('run-live-b', 0)));
    publishTokenDelta(bus, token('run-live-a', 0));
    publishTokenDelta(bus, token('run-live-a', 1));
    publishTokenDelta(bus, token('run-live-b', 2));
    await bus.nc.flush();
    sub.close();
    expect(received).toEqual([token('run-live-a', 0), token('run-live-a', 1)]);
    expect(invalid).toHaveLength(3);
    expect(invalid[2]).toBe('a token of run run-live-b');
  });

  it('keeps delivering after a handler throws, and reports the throw', async () => {
    const seen: number[] = [];
    const errors: unknown[] = [];
    const sub = subscribeTokenDeltas(bus, 'run-live-c', {
      onMessage: (t) => {
        seen.push(t.index);
        if (t.index === 0) throw new Error('listener broke');
      },
      onError: (e) => errors.push(e),
    });
    publishTokenDelta(bus, token('run-live-c', 0));
    publishTokenDelta(bus, token('run-live-c', 1));
    await bus.nc.flush();
    sub.close();
    expect(seen).toEqual([0, 1]);
    expect(errors.map((e) => (e as Error).message)).toEqual(['listener broke']);
  });

  it('sends a valid control message and refuses to send an invalid one', async () => {
    const received: RunControl[] = [];
    const sub = subscribeRunControl(bus, 'run-live-d', { onMessage: (c) => received.push(c) });
    const cancel: RunControl = { type: 'cancel', reason: 'operator', requestedAt: new Date().toISOString() };
    publishRunControl(bus, 'run-live-d', cancel);
    expect(() => publishRunControl(bus, 'run-live-d', { type: 'pause' } as unknown as RunControl)).toThrow();
    expect(() => publishRunControl(bus, 'bad id with spaces', cancel)).toThrow(/run id/);
    await bus.nc.flush();
    sub.close();
    expect(received).toEqual([cancel]);
  });

  it("stamps each appended event with the caller's trace context", async () => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED };
    const writer = new RunLogWriter(bus, 'run-live-traced', EMPTY_LOG, {
      traceContext: () => trace.setSpanContext(ROOT_CONTEXT, spanContext),
    });
    await writer.write({ type: 'custom', spanId: 'root', path: 'root', data: {} });
    const stored = await bus.jsm.streams.getMessage(bus.names.eventsStream, { last_by_subj: bus.names.eventSubject('run-live-traced') });
    expect(stored?.header.get('traceparent')).toBe(`00-${spanContext.traceId}-${spanContext.spanId}-01`);
    propagation.disable();
  });
});
