import { StepSlots } from './step-slots';

describe('StepSlots', () => {
  it('lets `size` runs step at once and hands freed slots out in arrival order', async () => {
    const slots = new StepSlots(2);
    const order: string[] = [];
    await slots.acquire();
    await slots.acquire();
    const third = slots.acquire().then(() => order.push('third'));
    const fourth = slots.acquire().then(() => order.push('fourth'));
    expect(slots.queued).toBe(2);
    slots.release();
    slots.release();
    await Promise.all([third, fourth]);
    expect(order).toEqual(['third', 'fourth']);
    expect(slots.inUse).toBe(2);
  });

  it('gives the slot up while waiting on the world, and takes one again after', async () => {
    const slots = new StepSlots(1);
    await slots.acquire();
    let answer!: (v: string) => void;
    const waiting = slots.whileWaiting(() => new Promise<string>((r) => (answer = r)));
    // Another run steps while the first one waits.
    await slots.acquire();
    expect(slots.inUse).toBe(1);
    answer('done');
    // The answer is in, but the slot is taken: the first run waits its turn to step again.
    while (slots.queued === 0) await new Promise((r) => setImmediate(r));
    slots.release();
    await expect(waiting).resolves.toBe('done');
    expect(slots.inUse).toBe(1);
  });

  it('takes a slot again after a wait that fails', async () => {
    const slots = new StepSlots(1);
    await slots.acquire();
    await expect(slots.whileWaiting(() => Promise.reject(new Error('provider down')))).rejects.toThrow('provider down');
    expect(slots.inUse).toBe(1);
    slots.release();
    expect(slots.inUse).toBe(0);
  });
});
