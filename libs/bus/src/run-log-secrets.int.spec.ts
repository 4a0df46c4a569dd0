import type { RunEvent } from '@spindle/contracts';
import { SecretMasker } from '@spindle/telemetry';
import { testEnv, testNamespace } from '@spindle/testing';
import { connectBus, type Bus } from './bus-connection';
import { deleteStreams, provisionStreams } from './provision-streams';
import { readRunLog } from './run-log.reader';
import { EMPTY_LOG, RunLogWriter } from './run-log.writer';

const MARKER = 'ZEBRA-4242-SECRET';

describe('secrets never enter a run log', () => {
  let bus: Bus;
  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'bus-secrets-test' });
    await provisionStreams(bus);
  });
  afterAll(async () => {
    await deleteStreams(bus);
    await bus.close();
  });

  it('masks patterns, credential shapes and secret fields before storing, and tells the OTel bridge the masked event', async () => {
    const masker = new SecretMasker({ patterns: ['ZEBRA-[0-9]+-SECRET'] });
    const seen: RunEvent[] = [];
    const writer = new RunLogWriter(bus, 'run-secrets', EMPTY_LOG, { masker, onAppended: (e) => seen.push(e) });
    await writer.append({
      type: 'run.queued',
      spanId: 'root',
      path: 'root',
      data: {
        workflow: { name: 'w', version: 1 },
        input: { note: `remember ${MARKER}`, password: 'correct horse battery staple' },
        state: { password: 'correct horse battery staple', nested: { password: 42 } },
        definition: { kind: 'graph', secrets: ['password'], nodes: [] },
      },
    });
    await writer.append({
      type: 'tool.returned',
      spanId: 'tool-1',
      path: 'root/call',
      data: {
        name: 'lookup',
        callId: 'c1',
        result: { header: 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz', password: 'x' },
        durationMs: 1,
      },
    });
    await writer.durable();

    const { events } = await readRunLog(bus, 'run-secrets');
    const stored = JSON.stringify(events);
    expect(stored).not.toContain(MARKER);
    expect(stored).not.toContain('correct horse');
    expect(stored).not.toContain('abcdefghijklmnopqrstuvwxyz');
    expect(events[0].data).toMatchObject({
      input: { note: 'remember [masked]', password: '[masked]' },
      state: { password: '[masked]', nested: { password: '[masked]' } },
    });
    expect(events[1].data).toMatchObject({ result: { header: 'Authorization: Bearer [masked]', password: '[masked]' } });
    // The bridge (and so every exported span) saw what the log holds, never the secret.
    expect(seen).toEqual(events);
  });

  it('masks an answer by the secret fields its run declared, and leaves a run without secrets as it was', async () => {
    const writer = new RunLogWriter(bus, 'run-plain', EMPTY_LOG, { secretFields: new Set(['pin']) });
    const data = { name: 'lookup', callId: 'c1', arguments: { pin: '1234', city: 'Oslo' } };
    await writer.write({ type: 'tool.called', spanId: 's', path: 'root', data });
    const plain = new RunLogWriter(bus, 'run-plain-2', EMPTY_LOG);
    await plain.write({ type: 'tool.called', spanId: 's', path: 'root', data });
    expect((await readRunLog(bus, 'run-plain')).events[0].data).toEqual({ ...data, arguments: { pin: '[masked]', city: 'Oslo' } });
    expect((await readRunLog(bus, 'run-plain-2')).events[0].data).toEqual(data);
  });

  it('masks what user code says like every event: a custom event’s data and a usage report’s label', async () => {
    const masker = new SecretMasker({ patterns: ['ZEBRA-[0-9]+-SECRET'] });
    const writer = new RunLogWriter(bus, 'run-voice', EMPTY_LOG, { masker, secretFields: new Set(['apiKey']) });
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0.1 };
    const under = { nodeId: 'lookup', parentSpanId: 'n', path: 'root/lookup' };
    await writer.append({
      type: 'custom',
      ...under,
      spanId: 'c',
      data: { name: 'order.looked_up', data: { apiKey: 'k-123', order: { apiKey: 'k-456', id: 7 }, note: `with ${MARKER}` } },
    });
    await writer.append({
      type: 'usage.reported',
      ...under,
      spanId: 'u',
      data: { usage, label: `paid with ${MARKER}`, source: { kind: 'function', name: 'lookup' }, runUsage: usage },
    });
    await writer.durable();
    const { events } = await readRunLog(bus, 'run-voice');
    expect(events[0].data).toEqual({
      name: 'order.looked_up',
      data: { apiKey: '[masked]', order: { apiKey: '[masked]', id: 7 }, note: 'with [masked]' },
    });
    expect(events[1].data).toMatchObject({ label: 'paid with [masked]' });
  });
});
