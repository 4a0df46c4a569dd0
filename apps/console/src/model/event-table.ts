import type { RunEvent } from '@spindle/contracts';

/** What the raw event table shows of a run's log. */
export interface EventFilter {
  /** An event type (`node.completed`) or a family (`node.`); empty for all. */
  type: string;
  /** Part of a node id or a path; empty for all. */
  where: string;
}

export interface EventRow {
  seq: number;
  type: string;
  nodeId?: string;
  path: string;
  at: string;
  /** Since the run's first event. */
  offsetMs: number;
  event: RunEvent;
}

/** The log's rows the filter keeps, in seq order. */
export function eventRows(events: readonly RunEvent[], filter: EventFilter): EventRow[] {
  const first = events[0] ? Date.parse(events[0].at) : 0;
  const where = filter.where.trim().toLowerCase();
  const rows: EventRow[] = [];
  for (const event of events) {
    if (filter.type && !(filter.type.endsWith('.') ? event.type.startsWith(filter.type) : event.type === filter.type)) continue;
    if (where && !(event.nodeId ?? '').toLowerCase().includes(where) && !event.path.toLowerCase().includes(where)) continue;
    rows.push({
      seq: event.seq,
      type: event.type,
      nodeId: event.nodeId,
      path: event.path,
      at: event.at,
      offsetMs: Date.parse(event.at) - first,
      event,
    });
  }
  return rows;
}

/** The types and families (`run.`, `node.`…) a run's log has, for the type filter: families first. */
export function eventTypesOf(events: readonly RunEvent[]): string[] {
  const types = new Set(events.map((e) => e.type));
  const families = new Set([...types].filter((t) => t.includes('.')).map((t) => `${t.split('.')[0]}.`));
  return [...[...families].sort(), ...[...types].sort()];
}

/** The row to show for the replay cursor: the last kept event at or before it (the cursor counts events). */
export function rowAtCursor(rows: readonly EventRow[], cursor: number): number {
  let index = -1;
  for (let i = 0; i < rows.length && rows[i]!.seq <= cursor; i++) index = i;
  return index;
}
