import { admitStream } from './stream-limits';

const limits = { perKey: 2, perTenant: 3, retryAfterSec: 5 };

describe('admitStream', () => {
  it('admits while both the key and its tenant are under their limits', () => {
    expect(admitStream({ key: 0, tenant: 0 }, limits)).toEqual({ admit: true });
    expect(admitStream({ key: 1, tenant: 2 }, limits)).toEqual({ admit: true });
  });

  it('refuses the stream past the key limit, naming that limit', () => {
    expect(admitStream({ key: 2, tenant: 2 }, limits)).toEqual({ admit: false, limit: 'key', max: 2, retryAfterSec: 5 });
  });

  it("refuses a key under its own limit when its tenant's streams are at the tenant limit", () => {
    expect(admitStream({ key: 0, tenant: 3 }, limits)).toEqual({ admit: false, limit: 'tenant', max: 3, retryAfterSec: 5 });
  });

  it('names the key limit when both are reached: closing its own streams is what helps', () => {
    expect(admitStream({ key: 2, tenant: 3 }, limits)).toMatchObject({ admit: false, limit: 'key' });
  });
});
