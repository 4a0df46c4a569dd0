import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { RunView } from '../model/run-view';
import { swimlanes, timeTicks } from '../model/swimlanes';
import { ms } from './format';

const LANE = 30;
const LABEL = 180;
/** The time axis above the lanes. */
const AXIS = 20;

/**
 * A lane per agent and fork branch on the run's time axis, with an arrow from each agent that
 * handed off to the execution of the agent it handed to. Derived from the same slice as the rest.
 */
export function SwimlanePane({ view, selected, onSelect }: { view: RunView; selected?: string; onSelect: (key: string) => void }) {
  const { lanes, handoffs } = useMemo(() => swimlanes(view), [view]);
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setWidth(Math.max(0, el.clientWidth - LABEL)));
    observer.observe(el);
    return () => observer.disconnect();
  }, [lanes.length > 0]);
  if (lanes.length === 0) return <div className="lanes-empty muted">No node has run{view.events ? ' so far' : ''}.</div>;

  const start = view.firstMs ?? 0;
  const total = Math.max(1, view.latencyMs);
  const x = (at: number) => ((at - start) / total) * width;
  const row = new Map(lanes.map((lane, i) => [lane.id, i]));
  const y = (laneId: string) => (row.get(laneId) ?? 0) * LANE + LANE / 2;
  const ticks = timeTicks(total, width);
  return (
    <div ref={box} className="lanes" data-testid="swimlanes" style={{ height: AXIS + lanes.length * LANE }}>
      <div className="lane-axis" style={{ height: AXIS, marginLeft: LABEL }} data-testid="lane-axis">
        {ticks.map((at) => (
          <span key={at} className="lane-tick" style={{ left: (at / total) * width }}>
            {ms(at)}
          </span>
        ))}
      </div>
      <svg className="lane-grid" style={{ left: LABEL, top: AXIS }} width={width} height={lanes.length * LANE}>
        {ticks.map((at) => (
          <line key={at} x1={(at / total) * width} x2={(at / total) * width} y1={0} y2={lanes.length * LANE} />
        ))}
      </svg>
      {lanes.map((lane) => (
        <div key={lane.id} className="lane-row" data-lane={lane.id} style={{ height: LANE }}>
          <div className="lane-name" style={{ width: LABEL }} title={lane.label}>
            {lane.label}
          </div>
          <div className="lane-track">
            {lane.bars.map((bar) => (
              <div
                key={bar.key}
                className={`lane-bar ${bar.status} ${selected === bar.key ? 'selected' : ''}`}
                style={{ left: x(bar.startMs), width: Math.max(3, x(bar.endMs) - x(bar.startMs)) }}
                title={`${bar.label}: ${ms(bar.endMs - bar.startMs)}`}
                onClick={() => onSelect(bar.key)}
              >
                {x(bar.endMs) - x(bar.startMs) > 48 && <span className="lane-bar-label">{bar.label}</span>}
              </div>
            ))}
          </div>
        </div>
      ))}
      <svg className="handoff-layer" style={{ left: LABEL, top: AXIS }} width={width} height={lanes.length * LANE}>
        <defs>
          <marker id="handoff-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" />
          </marker>
        </defs>
        {handoffs.map((h) => {
          const [x1, y1, x2, y2] = [x(h.fromMs), y(h.fromLane), x(h.toMs), y(h.toLane)];
          const bend = Math.max(12, (x2 - x1) / 2);
          return (
            <path
              key={`${h.fromKey}->${h.toKey}`}
              className="handoff-edge"
              data-from-lane={h.fromLane}
              data-to-lane={h.toLane}
              d={`M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`}
              markerEnd="url(#handoff-arrow)"
            >
              <title>{`${h.fromLane} → ${h.toLane}${h.note ? `: ${h.note}` : ''}`}</title>
            </path>
          );
        })}
      </svg>
    </div>
  );
}
