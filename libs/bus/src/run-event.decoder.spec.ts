import { busNames } from '@spindle/contracts';
import { parseRunEvent } from './run-event.decoder';

const names = busNames('ns');
const bytes = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
const event = {
  runId: 'r1',
  seq: 2,
  type: 'run.started',
  at: '2025-03-01T10:00:00.000Z',
  spanId: 'root',
  path: 'root',
  data: { attempt: 1, worker: 'w1' },
};

describe('parseRunEvent', () => {
  it('accepts a run event published on its own run subject', () => {
    expect(parseRunEvent('ns.run.ev.r1', bytes(event), names)).toEqual({ ok: true, event, bytes: bytes(event).byteLength });
  });

  it('names what is wrong: JSON, schema (with the field) or subject', () => {
    expect(parseRunEvent('ns.run.ev.r1', bytes('{"runId":'), names)).toMatchObject({
      ok: false,
      kind: 'invalid_json',
      reason: expect.stringMatching(/^invalid JSON: /),
    });
    expect(parseRunEvent('ns.run.ev.r1', new Uint8Array([0xff, 0xfe]), names)).toMatchObject({ ok: false, kind: 'invalid_json' });
    expect(parseRunEvent('ns.run.ev.r1', bytes({ ...event, seq: 0 }), names)).toMatchObject({
      ok: false,
      kind: 'invalid_event',
      reason: expect.stringContaining('seq: '),
    });
    expect(parseRunEvent('ns.run.ev.r1', bytes({ ...event, type: 'run.exploded' }), names)).toMatchObject({
      ok: false,
      kind: 'invalid_event',
    });
    expect(parseRunEvent('ns.run.ev.r2', bytes(event), names)).toEqual({
      ok: false,
      kind: 'wrong_subject',
      reason: 'event of run "r1" published on ns.run.ev.r2',
    });
  });
});
