import type { RunEvent, RunEventOf } from '@spindle/contracts';
import { stateAt } from '@spindle/projections';

/** Where a fork from a replay cursor starts: the last checkpoint at or before it, and the state there. */
export interface ForkPoint {
  checkpointId: string;
  seq: number;
  step: number;
  frontier: string[];
  state: Record<string, unknown>;
}

/**
 * The last checkpoint the run saved at or before `cursor` (a seq), with its state: the run's
 * initial state with each checkpoint's changes laid over, as the checkpoint service builds it.
 * Undefined before the first checkpoint.
 */
export function forkPointAt(events: readonly RunEvent[], cursor: number): ForkPoint | undefined {
  const queued = events[0]?.type === 'run.queued' ? events[0] : undefined;
  const path = events.filter((e): e is RunEventOf<'checkpoint.saved'> => e.type === 'checkpoint.saved' && e.seq <= cursor);
  const last = path.at(-1);
  if (!queued || !last) return undefined;
  const state = stateAt(
    queued.data.state,
    path.map((e) => e.data),
  );
  if (!state) return undefined;
  return { checkpointId: last.data.checkpointId, seq: last.seq, step: last.data.step, frontier: last.data.frontier, state };
}

export type ForkEdit = { ok: true; changes: Record<string, unknown> } | { ok: false; problem: string };

const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/**
 * The state a person edited, checked against the state it started from: JSON, an object, no key
 * taken away (a fork overwrites keys, it cannot remove one), and each value of the kind it was
 * (a null may become anything). Answers the top-level keys that changed: what the fork sends.
 */
export function checkForkEdit(original: Record<string, unknown>, text: string): ForkEdit {
  let edited: unknown;
  try {
    edited = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `not JSON: ${(e as Error).message}` };
  }
  if (kindOf(edited) !== 'object') return { ok: false, problem: 'the state must be a JSON object' };
  const next = edited as Record<string, unknown>;
  const removed = Object.keys(original).filter((k) => !Object.hasOwn(next, k));
  if (removed.length) return { ok: false, problem: `a fork cannot remove state keys: put back ${removed.join(', ')} (set null instead)` };
  const changes: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(next)) {
    const before = Object.hasOwn(original, key) ? original[key] : undefined;
    if (before !== undefined && before !== null && kindOf(value) !== kindOf(before))
      return { ok: false, problem: `${key} was ${article(kindOf(before))}; it cannot become ${article(kindOf(value))}` };
    if (JSON.stringify(value) !== JSON.stringify(before)) changes[key] = value;
  }
  return { ok: true, changes: { ...changes } };
}

const article = (kind: string) => (/^[aeiou]/.test(kind) ? `an ${kind}` : kind === 'null' ? 'null' : `a ${kind}`);
