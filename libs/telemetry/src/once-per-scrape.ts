/**
 * Shares one read among the gauges a scrape collects back to back: the first caller starts it,
 * the others of the same scrape get its promise, and the next scrape reads afresh. So two
 * gauges over one query (a count and an age, pending and ack-pending) cost one round trip.
 */
export function oncePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => (pending ??= read().finally(() => setImmediate(() => (pending = undefined))));
}
