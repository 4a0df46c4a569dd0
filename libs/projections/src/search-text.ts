/** At most this many characters of a value's words are indexed for the runs list's search (well under a tsvector's 1 MB). */
export const SEARCH_TEXT_BUDGET = 64 * 1024;

/**
 * The words a search may find in a value: its strings and numbers, depth first, joined by spaces,
 * cut at `budget` characters. Keys are left out (they are the workflow's, not the run's, words).
 */
export function searchTextOf(value: unknown, budget = SEARCH_TEXT_BUDGET): string {
  const parts: string[] = [];
  let used = 0;
  // An explicit stack: a deeply nested value cannot overflow the call stack.
  const stack: unknown[] = [value];
  while (stack.length > 0 && used < budget) {
    const item = stack.pop();
    if (typeof item === 'string' || (typeof item === 'number' && Number.isFinite(item))) {
      // Postgres text cannot hold a NUL: one in a model's output must not stall the projection.
      const text = String(item)
        .slice(0, budget - used)
        .replaceAll('\u0000', ' ');
      parts.push(text);
      used += text.length + 1;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push(item[i]);
    } else if (item !== null && typeof item === 'object') {
      const values = Object.values(item);
      for (let i = values.length - 1; i >= 0; i--) stack.push(values[i]);
    }
  }
  return parts.join(' ');
}

/** Both texts, space-separated, either possibly empty. */
export function joinSearchText(before: string | undefined, more: string): string {
  if (!before) return more;
  return more ? `${before} ${more}` : before;
}
