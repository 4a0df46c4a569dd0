/**
 * One write per batch of what arrives together: items handed over while a write is in flight
 * wait and go out together in the next one (group commit), so twenty concurrent requests cost a
 * few statements and transactions instead of twenty. Each caller's promise settles with the write
 * that carried its item; a failed write fails only the items it carried.
 */
export function coalescedWrites<T>(write: (items: T[]) => Promise<void>): (item: T) => Promise<void> {
  let waiting: Array<{ item: T; settle: (error?: unknown) => void }> = [];
  let writing = false;
  const drain = async () => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      await write(batch.map((w) => w.item)).then(
        () => batch.forEach((w) => w.settle()),
        (e: unknown) => batch.forEach((w) => w.settle(e ?? new Error('the write failed'))),
      );
    }
    writing = false;
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ item, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!writing) void drain();
    });
}
