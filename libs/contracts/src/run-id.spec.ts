import fc from 'fast-check';
import { ulid } from 'ulid';
import { predatesRunLog, runIdTime } from './run-id';

describe('runIdTime', () => {
  it('reads when a ULID run id was made, as the ulid library wrote it', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 2 ** 48 - 1 }), (ms) => expect(runIdTime(ulid(ms))).toBe(ms)));
  });

  it('reads nothing from an id that is not a ULID', () => {
    for (const id of ['run-ok', '01arz3ndektsv4rrffq69g5fav', '01ARZ3NDEKTSV4RRFFQ69G5FA', '01ARZ3NDEKTSV4RRFFQ69G5FAU']) {
      expect(runIdTime(id)).toBeUndefined();
    }
  });
});

describe('predatesRunLog', () => {
  it('is true only for a ULID made before the log began', () => {
    const began = Date.UTC(2026, 11, 2);
    expect(predatesRunLog(ulid(began - 1), began)).toBe(true);
    expect(predatesRunLog(ulid(began), began)).toBe(false);
    expect(predatesRunLog(ulid(began + 60_000), began)).toBe(false);
    // Not a run id: never "lost", only not found.
    expect(predatesRunLog('run-ok', began)).toBe(false);
  });
});
