import type { RunEvent } from '@spindle/contracts';
import { useEffect, useState } from 'react';
import { nextStep, previousStep } from '../model/replay-cursor';
import { isTypingTarget } from '../model/shortcuts';

/** Play, pause, step and drag through the recorded events; `undefined` cursor = live. */
export function ReplayControls({
  events,
  cursor,
  onCursor,
}: {
  events: RunEvent[];
  cursor?: number;
  onCursor: (at: number | undefined) => void;
}) {
  const [playing, setPlaying] = useState(false);
  const at = cursor ?? events.length;
  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => {
      const next = nextStep(events, at);
      onCursor(next);
      if (next >= events.length) setPlaying(false);
    }, 600);
    return () => clearInterval(timer);
  }, [playing, at, events, onCursor]);
  // ← / → step and space plays, unless a field (the cursor's own slider included) has the keys.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target)) return;
      if (e.key === 'ArrowLeft') onCursor(previousStep(events, at));
      else if (e.key === 'ArrowRight') onCursor(nextStep(events, at));
      else if (e.key === ' ' && !(e.target instanceof HTMLButtonElement)) {
        if (cursor === undefined) onCursor(0);
        setPlaying((p) => !p);
      } else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [events, at, cursor, onCursor]);
  return (
    <div className="replay" data-testid="replay">
      <button onClick={() => onCursor(0)} title="jump to start" aria-label="jump to start">
        |◀ start
      </button>
      <button onClick={() => onCursor(previousStep(events, at))} title="step back" aria-label="step back">
        ◀ step
      </button>
      <button
        onClick={() => {
          if (cursor === undefined) onCursor(0);
          setPlaying(!playing);
        }}
        aria-label={playing ? 'pause' : 'play'}
      >
        {playing ? 'pause' : '▶ play'}
      </button>
      <button onClick={() => onCursor(nextStep(events, at))} title="step to the next node completion" aria-label="step forward">
        step ▶
      </button>
      <button
        onClick={() => {
          setPlaying(false);
          onCursor(undefined);
        }}
        title="jump to the end (live)"
        aria-label="jump to end"
      >
        end ▶| live
      </button>
      <input
        type="range"
        min={0}
        max={events.length}
        value={at}
        onChange={(e) => onCursor(Number(e.target.value))}
        aria-label="replay cursor"
        data-testid="cursor"
      />
      <span className="mono">
        {at}/{events.length}
      </span>
    </div>
  );
}
