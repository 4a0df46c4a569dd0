export type RunState = Readonly<Record<string, unknown>>;

/** A node returns a delta of top-level keys; state is the fold of deltas. */
export function applyDelta(state: RunState, delta: Readonly<Record<string, unknown>>): RunState {
  return Object.freeze({ ...state, ...delta });
}
