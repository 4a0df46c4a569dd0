import { busNames } from '@spindle/contracts';
import type { Bus } from './bus-connection';
import { decodeRunMessage } from './run-event.decoder';

const names = busNames('ns');
// No message here names a stored payload, so the decoder never touches the bus: only its names.
const bus = { names } as Bus;
const bytes = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
const decode = (subject: string, data: Uint8Array) => decodeRunMessage(bus, { subject, data });
const event = {
  runId: 'r1',
  seq: 2,
  type: 'run.started',
  at: '2025-03-01T10:00:00.000Z',
  spanId: 'root',
  path: 'root',
  data: { attempt: 1, worker: 'w1' },
};
const custom = (seq: number) => ({ runId: 'r1', seq, type: 'custom', at: event.at, spanId: 'root', path: 'root', data: { seq } });

describe('decodeRunMessage', () => {
  it('accepts a run event published on its own run subject', async () => {
    await expect(decode('ns.run.ev.r1', bytes(event))).resolves.toEqual({ ok: true, events: [event], bytes: bytes(event).byteLength });
  });

  it('reads a writer batch as its events, in order', async () => {
    const batch = [event, custom(3), custom(4)];
    await expect(decode('ns.run.ev.r1', bytes(batch))).resolves.toEqual({ ok: true, events: batch, bytes: bytes(batch).byteLength });
  });

  it('names what is wrong: JSON, schema (with the field) or subject', async () => {
    await expect(decode('ns.run.ev.r1', bytes('{"runId":'))).resolves.toMatchObject({
      ok: false,
      kind: 'invalid_json',
      reason: expect.stringMatching(/^invalid JSON: /),
    });
    await expect(decode('ns.run.ev.r1', new Uint8Array([0xff, 0xfe]))).resolves.toMatchObject({ ok: false, kind: 'invalid_json' });
    await expect(decode('ns.run.ev.r1', bytes({ ...event, seq: 0 }))).resolves.toMatchObject({
      ok: false,
      kind: 'invalid_event',
      reason: expect.stringContaining('seq: '),
    });
    await expect(decode('ns.run.ev.r1', bytes({ ...event, type: 'run.exploded' }))).resolves.toMatchObject({
      ok: false,
      kind: 'invalid_event',
    });
    await expect(decode('ns.run.ev.r2', bytes(event))).resolves.toEqual({
      ok: false,
      kind: 'wrong_subject',
      reason: 'event of run "r1" published on ns.run.ev.r2',
    });
  });

  it('refuses a batch as a whole when any part of it is not a writer’s', async () => {
    await expect(decode('ns.run.ev.r1', bytes([]))).resolves.toMatchObject({
      ok: false,
      kind: 'invalid_event',
      reason: 'an empty batch of events',
    });
    await expect(decode('ns.run.ev.r1', bytes([event, { ...custom(3), seq: 'x' }]))).resolves.toMatchObject({
      ok: false,
      kind: 'invalid_event',
      reason: expect.stringMatching(/^event 2 of a batch: /),
    });
    await expect(decode('ns.run.ev.r1', bytes([event, { ...custom(3), runId: 'r2' }]))).resolves.toMatchObject({
      ok: false,
      kind: 'wrong_subject',
    });
    await expect(decode('ns.run.ev.r1', bytes([event, custom(4)]))).resolves.toEqual({
      ok: false,
      kind: 'invalid_event',
      reason: 'event 2 of a batch: seq 4 does not follow seq 2',
    });
    await expect(decode('ns.run.ev.r1', bytes([event, event]))).resolves.toMatchObject({ ok: false, kind: 'invalid_event' });
  });
});
