import { runEventSchema, type RunEvent } from '@spindle/contracts';
import { draft } from './approval-test.fixture';
import { eventsToApply } from './run-log-gaps';

const log: RunEvent[] = [draft.queued('support'), draft.started(), draft.askNode(), draft.inputRequested('req-1'), draft.awaiting()].map(
  (d, i) => runEventSchema.parse({ ...d, runId: 'run-1', seq: i + 1, at: '2025-03-01T10:00:00.000Z' }) as RunEvent,
);
const seqs = (events: RunEvent[]) => events.map((e) => e.seq);

// Filling a gap from the real log on NATS is covered by requests.projection.int.spec.ts.
describe('eventsToApply', () => {
  const unreadable: unknown[] = [];
  const onUndecodable = (e: unknown) => void unreadable.push(e);

  it('keeps events that continue the projection, in order, once each, without reading the log', async () => {
    const failIfRead = async (): Promise<RunEvent[]> => {
      throw new Error('read the log');
    };
    expect(seqs(await eventsToApply('run-1', 2, [log[3], log[1], log[2], log[2]], failIfRead, onUndecodable))).toEqual([3, 4]);
    expect(await eventsToApply('run-1', 5, log, failIfRead, onUndecodable)).toEqual([]);
  });

  it('applies the batch as is when the log cannot be decoded, and retries the batch when the log cannot be read', async () => {
    const corrupt = async () => JSON.parse('{') as RunEvent[];
    expect(seqs(await eventsToApply('run-1', 1, [log[4]], corrupt, onUndecodable))).toEqual([5]);
    expect(unreadable).toEqual([expect.any(SyntaxError)]);
    const down = async (): Promise<RunEvent[]> => {
      throw new Error('NATS is down');
    };
    await expect(eventsToApply('run-1', 1, [log[4]], down, onUndecodable)).rejects.toThrow('NATS is down');
  });
});
