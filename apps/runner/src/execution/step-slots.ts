/**
 * How many runs of this process step at once. A run holds a slot while it computes and gives it
 * up while it waits on the world (a model, a tool or MCP call, a function's promise, the log's
 * ack), so a runner can hold a thousand runs that mostly wait while only `size` of them compete
 * for the CPU. Slots are handed out first come, first served: no run starves.
 */
export class StepSlots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  get inUse(): number {
    return this.size - this.free;
  }

  /** Runs queued for a slot right now. */
  get queued(): number {
    return this.waiting.length;
  }

  acquire(): Promise<void> {
    if (this.free > 0 && this.waiting.length === 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }

  /** Waits for `wait` without the slot the caller holds, then takes one again. */
  async whileWaiting<T>(wait: () => Promise<T>): Promise<T> {
    this.release();
    try {
      return await wait();
    } finally {
      await this.acquire();
    }
  }
}
