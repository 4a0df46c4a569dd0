import { useEffect, useState } from 'react';

/**
 * The console's one ticking clock: `Date.now()`, refreshed every `intervalMs` while `active`
 * (something is running), frozen otherwise so finished runs do not re-render.
 */
export function useNow(intervalMs: number, active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, active]);
  return now;
}
