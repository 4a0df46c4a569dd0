import fc from 'fast-check';
import { pickAdmissions, type TenantQueue } from './admission';

const queue = (tenant: string, waiting: number, active = 0, limit = 100, lastAdmittedAt: number | null = null): TenantQueue => ({
  tenant,
  waiting,
  active,
  limit,
  lastAdmittedAt,
});

describe('pickAdmissions', () => {
  it('takes turns: a tenant with 200 waiting runs gets one slot per round like a tenant with 5', () => {
    expect(pickAdmissions([queue('a', 200, 0, 100, 1), queue('b', 5, 0, 100, 2)], 6)).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
  });

  it('serves the tenant served longest ago first, a never-served one before all', () => {
    expect(pickAdmissions([queue('a', 3, 0, 100, 50), queue('b', 3, 0, 100, 10), queue('c', 3)], 3)).toEqual(['c', 'b', 'a']);
  });

  it('never takes a tenant past its limit, and leaves slots free rather than break one', () => {
    expect(pickAdmissions([queue('a', 10, 2, 3), queue('b', 1)], 5)).toEqual(['a', 'b']);
    expect(pickAdmissions([queue('a', 10, 3, 3)], 5)).toEqual([]);
  });

  it('holds for any queues: no tenant over its limit or its backlog, the slots used as far as room allows', () => {
    const queues = fc.uniqueArray(
      fc.record({
        tenant: fc.stringMatching(/^[a-z]{1,3}$/),
        waiting: fc.nat(50),
        active: fc.nat(20),
        limit: fc.integer({ min: 1, max: 30 }),
        lastAdmittedAt: fc.option(fc.nat(1_000)),
      }),
      { selector: (q) => q.tenant, maxLength: 8 },
    );
    fc.assert(
      fc.property(queues, fc.nat(40), (qs, slots) => {
        const picks = pickAdmissions(qs, slots);
        const room = qs.reduce((n, q) => n + Math.max(0, Math.min(q.waiting, q.limit - q.active)), 0);
        expect(picks.length).toBe(Math.min(slots, room));
        for (const q of qs) {
          const taken = picks.filter((t) => t === q.tenant).length;
          expect(taken).toBeLessThanOrEqual(Math.max(0, Math.min(q.waiting, q.limit - q.active)));
        }
        // Round robin: among tenants that could take more, counts differ by at most one.
        const open = qs.filter((q) => Math.min(q.waiting, q.limit - q.active) > 0);
        const counts = open.map((q) => picks.filter((t) => t === q.tenant).length);
        const full = open.filter((q, i) => counts[i] < Math.min(q.waiting, q.limit - q.active));
        if (full.length > 0) {
          const least = Math.min(...full.map((q) => counts[open.indexOf(q)]));
          expect(Math.max(...counts.filter((_c, i) => counts[i] > 0))).toBeLessThanOrEqual(least + 1);
        }
      }),
    );
  });
});
