import type { RunEvent } from '@spindle/contracts';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { spanTimes, type RunView } from '../model/run-view';
import { passedTo } from '../model/swimlanes';
import { timelineRows } from '../model/timeline-rows';
import { ms } from './format';
import { EventTable } from './EventTable';
import { ModeToggle } from './ModeToggle';
import { SwimlanePane } from './SwimlanePane';

const ROW = 26;

/** The run on its time axis: every span nested under its parent (virtualized), or one swimlane per agent and branch. */
export function TimelinePane(props: {
  view: RunView;
  /** The whole log, and the replay cursor (events shown), for the raw event table. */
  events: RunEvent[];
  cursor: number;
  onCursor: (at: number) => void;
  selected?: string;
  onSelect: (key: string) => void;
  /** The run's wall and working time (contracts' `runDurations`) when live; at a replay cursor, first to last event shown. */
  durations?: { wallMs: number; workingMs: number };
  /** The live clock while the run goes (absent at a replay cursor): open spans run on to it. */
  now?: number;
}) {
  const { view, selected, onSelect } = props;
  const [mode, setMode] = useState<'spans' | 'lanes' | 'events'>('spans');
  return (
    <div className="timeline">
      <div className="timeline-head">
        <ModeToggle
          label="timeline view"
          className="timeline-modes"
          modes={[
            ['spans', 'spans'],
            ['lanes', 'lanes'],
            ['events', 'events'],
          ]}
          value={mode}
          onChange={setMode}
        />
        <span>
          {props.durations
            ? `wall ${ms(props.durations.wallMs)} · working ${ms(props.durations.workingMs)}`
            : `end-to-end ${ms(view.latencyMs)}`}
        </span>
      </div>
      {mode === 'spans' && <SpanRows view={view} selected={selected} onSelect={onSelect} now={props.now} />}
      {mode === 'lanes' && (
        <div className="timeline-scroll">
          <SwimlanePane view={view} selected={selected} onSelect={onSelect} />
        </div>
      )}
      {mode === 'events' && <EventTable events={props.events} cursor={props.cursor} onCursor={props.onCursor} />}
    </div>
  );
}

function SpanRows({ view, selected, onSelect, now }: { view: RunView; selected?: string; onSelect: (key: string) => void; now?: number }) {
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const rows = useMemo(() => timelineRows(view, expanded, collapsed), [view, expanded, collapsed]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 12 });
  const start = view.firstMs ?? 0;
  const total = Math.max(1, view.latencyMs, now !== undefined && view.firstMs !== undefined ? now - view.firstMs : 0);
  const toggle = (set: Set<string>, key: string, apply: (s: Set<string>) => void) => {
    const next = new Set(set);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    apply(next);
  };
  const bar = (from: number, to: number) => ({
    left: `${((from - start) / total) * 100}%`,
    width: `${Math.max(0.3, ((to - from) / total) * 100)}%`,
  });
  return (
    <>
      <div className="timeline-count muted">{rows.length} rows</div>
      <div ref={scroller} className="timeline-scroll" data-testid="timeline">
        <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
          {virtual.getVirtualItems().map((item) => {
            const row = rows[item.index];
            const style = { position: 'absolute' as const, top: item.start, height: ROW, left: 0, right: 0 };
            if (row.kind === 'round') {
              return (
                <div
                  key={row.key}
                  className={`trow round ${row.failed ? 'failed' : ''}`}
                  style={style}
                  onClick={() => toggle(expanded, row.key, setExpanded)}
                >
                  <div className="tlabel" style={{ paddingLeft: row.depth * 12 }}>
                    {expanded.has(row.key) ? '▾' : '▸'} round {row.iteration} <span className="muted">({row.spans} spans)</span>
                  </div>
                  <div className="ttrack">
                    <div className="tbar round" style={bar(row.startMs, row.endMs)} />
                  </div>
                </div>
              );
            }
            const { span } = row;
            const { durationMs, selfMs } = spanTimes(span, view, now);
            const onPath = view.failurePath.has(span.key);
            return (
              <div
                key={span.key}
                className={`trow ${selected === span.key ? 'selected' : ''} ${onPath ? 'failure-path' : ''}`}
                style={style}
                onClick={() => onSelect(span.key)}
                data-span-kind={span.kind}
                data-node-id={span.nodeId}
                data-status={span.status}
              >
                <div className="tlabel" style={{ paddingLeft: row.depth * 12 }}>
                  {row.hasChildren ? (
                    <span
                      className="twisty"
                      onClick={(e) => {
                        e.stopPropagation();
                        toggle(collapsed, span.key, setCollapsed);
                      }}
                    >
                      {collapsed.has(span.key) ? '▸' : '▾'}
                    </span>
                  ) : (
                    <span className="twisty" />
                  )}
                  <span className={`kind ${span.kind}`}>{span.kind}</span> {span.label}
                  {span.execution > 1 && <span className="badge">#{span.execution}</span>}
                  {row.lane && <span className="lane">{row.lane}</span>}
                  {passedTo(span) && (
                    <span className="handoff" title="passed control to">
                      ⇢ {passedTo(span)?.agent}
                    </span>
                  )}
                </div>
                <div className="ttrack" title={`wall ${ms(durationMs)} (own ${ms(selfMs)})`}>
                  <div className={`tbar ${span.kind} ${span.status}`} style={bar(span.startMs, span.startMs + durationMs)} />
                </div>
                <div className="tdur">{ms(durationMs)}</div>
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}
