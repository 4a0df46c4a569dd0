import type { RunSort, SortOrder } from '@spindle/contracts';
import { dateTime } from '../components/format';

/** What the runs list asks the gateway for; every field lives in the URL so a search can be saved and shared. */
export interface RunsFilter {
  q?: string;
  workflow?: string;
  status?: string;
  errorCode?: string;
  parameter?: string;
  /** A score filter: `helpfulness`, `helpfulness>=0.8`, `correct=true`. */
  score?: string;
  from?: string;
  to?: string;
  /** `include`: also the internal runs (a thread's state changes, workflow `_thread_state`). */
  internal?: string;
  sort: RunSort;
  order: SortOrder;
  cursor?: string;
}

const TEXT_KEYS = ['q', 'workflow', 'status', 'errorCode', 'parameter', 'score', 'from', 'to', 'internal', 'cursor'] as const;
export type RunsFilterKey = (typeof TEXT_KEYS)[number];
const SORTS: readonly RunSort[] = ['started', 'duration', 'tokens', 'cost', 'score'];

/** The filter a URL's query names; unknown keys and impossible sorts are ignored (the list's defaults apply). */
export function readRunsFilter(query: URLSearchParams): RunsFilter {
  const filter: RunsFilter = { sort: 'started', order: 'desc' };
  for (const key of TEXT_KEYS) {
    const value = query.get(key);
    if (value) filter[key] = value;
  }
  const sort = query.get('sort') as RunSort | null;
  // By score only with a score filter to name it (the gateway refuses it without one).
  if (sort && SORTS.includes(sort) && (sort !== 'score' || filter.score)) filter.sort = sort;
  if (query.get('order') === 'asc') filter.order = 'asc';
  return filter;
}

/** The query with one filter changed (empty removes it); any change of filter starts again at the first page. */
export function withFilter(query: URLSearchParams, key: Exclude<RunsFilterKey, 'cursor'>, value: string): URLSearchParams {
  const next = new URLSearchParams(query);
  if (value) next.set(key, value);
  else next.delete(key);
  next.delete('cursor');
  return next;
}

/** Sorting by a column: its largest first, then the other way on a second click; the first page again. */
export function sortedBy(query: URLSearchParams, column: RunSort): URLSearchParams {
  const current = readRunsFilter(query);
  const next = new URLSearchParams(query);
  next.set('sort', column);
  next.set('order', current.sort === column && current.order === 'desc' ? 'asc' : 'desc');
  next.delete('cursor');
  return next;
}

/** The query of another page of the same search. */
export function atPage(query: URLSearchParams, cursor: string | undefined): URLSearchParams {
  const next = new URLSearchParams(query);
  if (cursor) next.set('cursor', cursor);
  else next.delete('cursor');
  return next;
}

/** `2026-12-01T18:40` as a `datetime-local` input shows it, in the browser's zone; '' for none. */
export function toLocalInput(iso: string | undefined): string {
  if (!iso || Number.isNaN(Date.parse(iso))) return '';
  return dateTime(iso).slice(0, 16).replace(' ', 'T');
}

/** A `datetime-local` value (the browser's zone) as the instant the gateway takes; '' for none. */
export function fromLocalInput(value: string): string {
  if (!value) return '';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}
