import type { RunEvent } from '@spindle/contracts';
import { missingCheckpointError } from './missing-checkpoint';

const saved = (seq: number, checkpointId: string, at: string) =>
  ({
    runId: 'r1',
    seq,
    at,
    type: 'checkpoint.saved',
    spanId: 'root',
    path: 'root',
    data: { checkpointId, step: seq, changes: {}, frontier: [], graphHash: 'g' },
  }) as RunEvent;
const log = [saved(3, 'cp-1', '2026-12-01T10:00:00.000Z'), saved(5, 'cp-2', '2026-12-03T10:00:00.000Z')];
const codeOf = (asked: Parameters<typeof missingCheckpointError>[2], events: RunEvent[] = log) =>
  missingCheckpointError('r1', events, asked).code;

describe('missingCheckpointError', () => {
  it('is checkpoint_not_found when the log never saved the checkpoint asked for (or any)', () => {
    expect(codeOf({ checkpointId: 'cp-9' })).toBe('checkpoint_not_found');
    expect(codeOf({}, [])).toBe('checkpoint_not_found');
  });

  it('is checkpoint_expired when the checkpoint was saved before the TTL cut-off, and says when', () => {
    const error = missingCheckpointError('r1', log, { checkpointId: 'cp-1', expiredBefore: '2026-12-02T00:00:00.000Z' });
    expect(error.code).toBe('checkpoint_expired');
    expect(error.message).toContain('2026-12-01T10:00:00.000Z');
    // Without an id the run's latest counts, and it is still within the TTL.
    expect(codeOf({ expiredBefore: '2026-12-02T00:00:00.000Z' })).toBe('service_unavailable');
  });

  it('is service_unavailable (a retry helps) when the log has it within the TTL or the service gave no cut-off', () => {
    expect(codeOf({ checkpointId: 'cp-2', expiredBefore: '2026-12-02T00:00:00.000Z' })).toBe('service_unavailable');
    expect(codeOf({ checkpointId: 'cp-1' })).toBe('service_unavailable');
  });
});
