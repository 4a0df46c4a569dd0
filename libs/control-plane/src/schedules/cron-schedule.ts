import { SpindleError } from '@spindle/contracts';
import { Cron } from 'croner';

/** What to do with firings missed while no gateway was up: none, the latest one, or each (at most `MAX_CATCH_UP`). */
export type CatchUp = 'none' | 'latest' | 'all';
export const MAX_CATCH_UP = 100;
/** How late a firing may still be made under `catchUp: none` (a pass runs each second). */
const ON_TIME_MS = 30_000;

const refuse = (field: string, message: string) =>
  new SpindleError('validation_failed', `${field}: ${message}`, { issues: [{ field, message }] });

/** What a cron is made of, as every refusal of its shape says it (and the README). */
export const CRON_FIELDS = 'five fields (minute hour day-of-month month day-of-week), six with seconds first, or seven with a year last';

/**
 * A cron expression in a time zone (`CRON_FIELDS`), checked: it parses, the zone exists, and no
 * two of its next firings are closer than `minIntervalMs`.
 */
export function parseCron(expression: string, timezone: string, minIntervalMs: number): Cron {
  const fields = expression.trim().split(/\s+/).length;
  if (fields < 5 || fields > 7)
    throw refuse('cron', `"${expression}" has ${fields} field${fields === 1 ? '' : 's'}: a cron has ${CRON_FIELDS}`);
  let cron: Cron;
  try {
    cron = new Cron(expression, { timezone, paused: true, legacyMode: true });
  } catch (e) {
    throw refuse('cron', (e as Error).message.replace(/^CronPattern: /, ''));
  }
  let next: Date[];
  try {
    next = cron.nextRuns(20, new Date());
  } catch {
    // croner checks the zone when it first converts a time.
    throw refuse('timezone', `"${timezone}" is not an IANA time zone`);
  }
  if (next.length === 0) throw refuse('cron', 'never fires');
  for (let i = 1; i < next.length; i++)
    if (next[i].getTime() - next[i - 1].getTime() < minIntervalMs)
      throw refuse('cron', `fires more often than once every ${minIntervalMs / 1_000} s, the least interval this deployment allows`);
  return cron;
}

/**
 * The firings due now: the cron's times from `since` (the time planned last) up to `now`, thinned
 * by the catch-up policy; and when the schedule fires next. Read back from `now`, so after a long
 * outage `latest` is the latest time and `all` the last `MAX_CATCH_UP`.
 */
export function dueFirings(cron: Cron, since: Date, now: Date, catchUp: CatchUp): { due: Date[]; next: Date | null } {
  // croner's previous runs are whole seconds strictly before the reference: a second on includes `now`.
  const due = cron
    .previousRuns(MAX_CATCH_UP + 1, new Date(now.getTime() + 1_000))
    .filter((t) => t.getTime() >= since.getTime() && t.getTime() <= now.getTime())
    .reverse()
    .slice(-MAX_CATCH_UP);
  const next = cron.nextRun(now);
  if (catchUp === 'all') return { due, next };
  const latest = due.at(-1);
  if (!latest) return { due: [], next };
  if (catchUp === 'latest') return { due: [latest], next };
  return { due: now.getTime() - latest.getTime() <= ON_TIME_MS ? [latest] : [], next };
}

/** The cron's next `count` firings after `now` (what a schedule's view lists as `upcoming`). */
export function upcomingFirings(cron: Cron, now: Date, count: number): Date[] {
  return cron.nextRuns(count, now);
}
