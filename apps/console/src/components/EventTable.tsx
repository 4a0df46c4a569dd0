import type { RunEvent } from '@spindle/contracts';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { eventRows, eventTypesOf, rowAtCursor } from '../model/event-table';
import { ms } from './format';
import { JsonTree } from './JsonTree';

const ROW = 24;

/**
 * The run's log as it is: one row per event (virtualized), filtered by type and by node or path,
 * each row opening to the whole event. The replay cursor's event is marked and kept in view;
 * events after it are dimmed; a row's seq moves the cursor there.
 */
export function EventTable({ events, cursor, onCursor }: { events: RunEvent[]; cursor: number; onCursor: (seq: number) => void }) {
  const [type, setType] = useState('');
  const [where, setWhere] = useState('');
  const [open, setOpen] = useState<Set<number>>(new Set());
  const rows = useMemo(() => eventRows(events, { type, where }), [events, type, where]);
  const types = useMemo(() => eventTypesOf(events), [events]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW,
    overscan: 16,
    getItemKey: (i) => rows[i]!.seq,
  });
  const current = rowAtCursor(rows, cursor);
  useEffect(() => {
    if (current >= 0) virtual.scrollToIndex(current, { align: 'auto' });
  }, [current, rows]);
  const toggle = (seq: number) => {
    const next = new Set(open);
    if (next.has(seq)) next.delete(seq);
    else next.add(seq);
    setOpen(next);
  };
  return (
    <div className="event-table" data-testid="event-table">
      <div className="event-filters">
        <select value={type} onChange={(e) => setType(e.target.value)} aria-label="event type">
          <option value="">every type</option>
          {types.map((t) => (
            <option key={t} value={t}>
              {t.endsWith('.') ? `${t}*` : t}
            </option>
          ))}
        </select>
        <input placeholder="node or path" value={where} onChange={(e) => setWhere(e.target.value)} aria-label="event node or path" />
        <span className="muted">
          {rows.length} of {events.length} events
        </span>
      </div>
      <div className="erow ehead">
        <span>seq</span>
        <span>time</span>
        <span>type</span>
        <span>node</span>
        <span>path</span>
      </div>
      <div ref={scroller} className="timeline-scroll">
        <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
          {virtual.getVirtualItems().map((item) => {
            const row = rows[item.index]!;
            const state = item.index === current ? 'at-cursor' : row.seq > cursor ? 'future' : '';
            return (
              <div
                key={item.key}
                data-index={item.index}
                ref={virtual.measureElement}
                className={`erow-wrap ${state}`}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)` }}
                data-seq={row.seq}
              >
                <div className="erow" onClick={() => toggle(row.seq)} aria-expanded={open.has(row.seq)}>
                  <button
                    className="link mono"
                    title="move the replay cursor to this event"
                    onClick={(e) => {
                      e.stopPropagation();
                      onCursor(row.seq);
                    }}
                  >
                    {row.seq}
                  </button>
                  <span className="muted" title={row.at}>
                    +{ms(row.offsetMs)}
                  </span>
                  <span className="mono">{row.type}</span>
                  <span>{row.nodeId ?? ''}</span>
                  <span className="mono muted">{row.path}</span>
                </div>
                {open.has(row.seq) && (
                  <div className="event-json">
                    <JsonTree value={row.event} openDepth={3} />
                  </div>
                )}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
