import { runEventSchema, sealRunEvent, type RunEvent, type RunEventDraft } from '@spindle/contracts';
import { runLogArbitrary } from '@spindle/testing';
import fc from 'fast-check';
import { ZodError } from 'zod';

function draftOf(event: RunEvent): RunEventDraft {
  const { runId: _runId, seq: _seq, at: _at, ...draft } = event;
  return draft as RunEventDraft;
}

const stamp = (e: RunEvent) => ({ runId: e.runId, seq: e.seq, at: e.at });

describe("sealRunEvent: the writer's check", () => {
  it('gives exactly what the full parse gives, for every kind of event a log holds', () => {
    fc.assert(
      fc.property(runLogArbitrary({ maxSteps: 25 }), (log) => {
        for (const event of log) {
          // With a key the schema does not know on the envelope and in the data: both strip it.
          const draft = { ...draftOf(event), stray: 1, data: { ...(event.data as object), stray: 2 } } as unknown as RunEventDraft;
          const sealed = sealRunEvent(draft, stamp(event));
          const parsed = runEventSchema.parse({ ...draft, ...stamp(event) });
          expect(sealed).toEqual(parsed);
          expect(JSON.stringify(sealed)).toBe(JSON.stringify(parsed));
        }
      }),
      { numRuns: 50 },
    );
  });

  it("refuses data its type's schema refuses, naming the field under data", () => {
    const base = { spanId: 's1', path: 'root/a', nodeId: 'a' };
    const bad: RunEventDraft[] = [
      { ...base, type: 'node.completed', data: { nodeType: 'function', output: ['not', 'a', 'record'], durationMs: 1 } },
      { ...base, type: 'node.completed', data: { nodeType: 'function', output: {}, durationMs: -1 } },
      { ...base, type: 'checkpoint.saved', data: { checkpointId: 'cp-1', step: 1, frontier: [], graphHash: 'h' } },
    ] as unknown as RunEventDraft[];
    for (const draft of bad) {
      let thrown: unknown;
      try {
        sealRunEvent(draft, { runId: 'r1', seq: 2, at: '2026-12-07T10:00:00.000Z' });
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(ZodError);
      expect((thrown as ZodError).issues[0]!.path[0]).toBe('data');
    }
    // A type no schema has, including names every object inherits.
    for (const type of ['node.exploded', 'constructor', '__proto__', 'toString'])
      expect(() =>
        sealRunEvent({ ...base, type, data: {} } as unknown as RunEventDraft, stamp({ runId: 'r', seq: 1, at: 'x' } as RunEvent)),
      ).toThrow(ZodError);
  });
});
