export type RunState = Readonly<Record<string, unknown>>;

/** A node returns a delta of top-level keys; state is the fold of deltas. */
export function applyDelta(state: RunState, delta: Readonly<Record<string, unknown>>): RunState {
  return Object.freeze({ ...state, ...delta });
}

/**
 * The top-level keys whose values differ between two states (what a nested graph changed, what a
 * checkpoint records). States are immutable, so an unchanged key keeps its value's identity.
 */
export function changedKeys(before: RunState, after: RunState): Record<string, unknown> {
  return Object.fromEntries(Object.entries(after).filter(([key, value]) => !Object.hasOwn(before, key) || before[key] !== value));
}
