import type { RunView, SpanView } from './run-view';
import { laneOf } from './swimlanes';

export type TimelineRow =
  | { kind: 'span'; span: SpanView; depth: number; lane: string; hasChildren: boolean }
  /** A loop's round, collapsed to one row until expanded. */
  | {
      kind: 'round';
      key: string;
      loopKey: string;
      iteration: number;
      depth: number;
      spans: number;
      startMs: number;
      endMs: number;
      failed: boolean;
    };

/**
 * The timeline's rows: spans depth-first in start order; a loop's children grouped into one row
 * per round (expand a round to see its spans); rows under a collapsed span are left out.
 */
export function timelineRows(view: RunView, expanded: ReadonlySet<string>, collapsed: ReadonlySet<string>): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const visit = (span: SpanView, depth: number) => {
    const children = span.children.map((k) => view.byKey.get(k)).filter((c): c is SpanView => c !== undefined);
    rows.push({ kind: 'span', span, depth, lane: laneTag(span), hasChildren: children.length > 0 });
    if (collapsed.has(span.key)) return;
    if (span.nodeType === 'loop') {
      const rounds = new Map<number, SpanView[]>();
      for (const c of children) rounds.set(c.iteration ?? 0, [...(rounds.get(c.iteration ?? 0) ?? []), c]);
      for (const [iteration, members] of rounds) {
        const key = `${span.key}#${iteration}`;
        const all = members.flatMap((m) => descendants(view, m));
        rows.push({
          kind: 'round',
          key,
          loopKey: span.key,
          iteration,
          depth: depth + 1,
          spans: all.length,
          startMs: Math.min(...all.map((s) => s.startMs)),
          endMs: Math.max(...all.map((s) => s.endMs ?? view.lastMs ?? s.startMs)),
          failed: all.some((s) => s.status === 'failed'),
        });
        if (expanded.has(key)) for (const m of members) visit(m, depth + 2);
      }
      return;
    }
    for (const c of children) visit(c, depth + 1);
  };
  for (const root of view.spans.filter((s) => !s.parentKey)) visit(root, 0);
  return rows;
}

function descendants(view: RunView, span: SpanView): SpanView[] {
  return [
    span,
    ...span.children.flatMap((k) => {
      const c = view.byKey.get(k);
      return c ? descendants(view, c) : [];
    }),
  ];
}

/** The tag a row carries: the fork branch it runs in, else its own lane (an agent's). */
function laneTag(span: SpanView): string {
  return span.branchId ? `branch ${span.branchId}` : (laneOf(span)?.label ?? '');
}
