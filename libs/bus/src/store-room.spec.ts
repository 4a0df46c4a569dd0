import { SpindleError } from '@spindle/contracts';
import { asBusFault, isBusFault, retryBusFaults } from './bus-faults';
import { isStoreFull, storeRoom } from './store-room';

/** What @nats-io/jetstream throws when the store has no room (seen from nats-server 2.9 at max_file_store). */
const insufficientResources = () =>
  Object.assign(new Error('insufficient resources'), {
    name: 'JetStreamApiError',
    code: 10023,
    status: 503,
    api_error: { code: 503, err_code: 10023, description: 'insufficient resources' },
  });

describe('a full JetStream store', () => {
  it('is no bus fault (no wait of seconds makes room) though JetStream answers it with a 503', () => {
    const e = insufficientResources();
    expect(isStoreFull(e)).toBe(true);
    expect(isBusFault(e)).toBe(false);
    // A 503 without the code is still a bus fault: no leader for the stream yet.
    expect(isBusFault(Object.assign(new Error('no leader'), { name: 'JetStreamApiError', status: 503 }))).toBe(true);
  });

  it('becomes storage_full with a Retry-After', () => {
    expect(asBusFault(insufficientResources(), 'appending')).toMatchObject({ code: 'storage_full', retryable: true, retryAfterSec: 30 });
  });

  it('is refused at the first attempt, not retried, and marks the store full until a write is stored', async () => {
    let attempts = 0;
    const refused = retryBusFaults(
      'appending',
      async () => {
        attempts++;
        throw insufficientResources();
      },
      { retryForMs: 60_000 },
    );
    await expect(refused).rejects.toBeInstanceOf(SpindleError);
    await expect(refused).rejects.toMatchObject({ code: 'storage_full' });
    expect(attempts).toBe(1);
    expect(storeRoom.full).toBe(true);
    await retryBusFaults('appending', async () => 1, { retryForMs: 1_000 });
    expect(storeRoom.full).toBe(false);
  });
});
