import { describe, expect, it } from 'vitest';
import { atPage, fromLocalInput, readRunsFilter, sortedBy, toLocalInput, withFilter } from './runs-filter';

const q = (text: string) => new URLSearchParams(text);

describe('the runs filter in the URL', () => {
  it('reads every filter, and ignores what the list could not ask', () => {
    expect(readRunsFilter(q('q=parcel&status=failed&errorCode=model_error&sort=cost&order=asc&cursor=abc&bogus=1'))).toEqual({
      q: 'parcel',
      status: 'failed',
      errorCode: 'model_error',
      sort: 'cost',
      order: 'asc',
      cursor: 'abc',
    });
    expect(readRunsFilter(q('sort=name&order=sideways&workflow='))).toEqual({ sort: 'started', order: 'desc' });
    // Internal runs (a thread's state changes) are asked for explicitly, and kept in the URL.
    expect(readRunsFilter(withFilter(q(''), 'internal', 'include'))).toEqual({ internal: 'include', sort: 'started', order: 'desc' });
  });

  it('sorts by a score only when a score filter names it', () => {
    expect(readRunsFilter(q('score=helpfulness%3E%3D0.8&sort=score'))).toEqual({ score: 'helpfulness>=0.8', sort: 'score', order: 'desc' });
    expect(readRunsFilter(q('sort=score'))).toEqual({ sort: 'started', order: 'desc' });
  });

  it('starts again at the first page when a filter changes or is cleared', () => {
    expect(withFilter(q('status=failed&cursor=abc'), 'q', 'lyon').toString()).toBe('status=failed&q=lyon');
    expect(withFilter(q('status=failed&cursor=abc'), 'status', '').toString()).toBe('');
  });

  it('sorts a new column largest first, flips it on a second click, and goes back to the first page', () => {
    const byTokens = sortedBy(q('cursor=abc'), 'tokens');
    expect(byTokens.toString()).toBe('sort=tokens&order=desc');
    expect(sortedBy(byTokens, 'tokens').toString()).toBe('sort=tokens&order=asc');
    expect(sortedBy(sortedBy(byTokens, 'tokens'), 'tokens').toString()).toBe('sort=tokens&order=desc');
    expect(readRunsFilter(sortedBy(q(''), 'started'))).toMatchObject({ sort: 'started', order: 'asc' });
  });

  it('moves between pages of the same search', () => {
    expect(atPage(q('q=x'), 'next').toString()).toBe('q=x&cursor=next');
    expect(atPage(q('q=x&cursor=next'), undefined).toString()).toBe('q=x');
  });

  it('round-trips a time through the datetime-local input, in the browser zone, to the minute', () => {
    const iso = fromLocalInput('2026-03-04T05:06');
    expect(new Date(iso).getMinutes()).toBe(6);
    expect(toLocalInput(iso)).toBe('2026-03-04T05:06');
    expect(toLocalInput('not a time')).toBe('');
    expect(fromLocalInput('')).toBe('');
  });
});
