import { useEffect, useState } from 'react';

/** Loads now and every `everyMs` while mounted; keeps the last good value on a failed refresh. */
export function usePolling<T>(load: () => Promise<T>, everyMs: number, deps: unknown[]): { data?: T; error?: string; reload: () => void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    const run = () =>
      load().then(
        (d) => live && (setData(d), setError(undefined)),
        (e: Error) => live && setError(e.message),
      );
    void run();
    const timer = setInterval(run, everyMs);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [...deps, tick]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}
