import { planFiring, type FiringStep, type ScheduleOverlap } from './firing-plan';

describe('planFiring', () => {
  it.each<[ScheduleOverlap, string | undefined, FiringStep]>([
    ['skip', undefined, { kind: 'start' }],
    ['queue', undefined, { kind: 'start' }],
    ['cancel_previous', undefined, { kind: 'start' }],
    ['skip', 'r1', { kind: 'skip', detail: 'run r1 had not ended' }],
    ['queue', 'r1', { kind: 'wait' }],
    ['cancel_previous', 'r1', { kind: 'cancel_then_start', runId: 'r1' }],
  ])('overlap %s with the last run %s going', (overlap, running, step) => {
    expect(planFiring(overlap, running)).toEqual(step);
  });
});
