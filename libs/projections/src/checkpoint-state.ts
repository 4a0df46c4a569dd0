/**
 * Lays each checkpoint's changes over the state before it; a checkpoint from an older log holds
 * its whole state and starts over from there. Undefined when the base is missing.
 */
export function stateAt(
  initial: Record<string, unknown> | undefined,
  path: ReadonlyArray<{ state?: unknown; changes?: unknown }>,
): Record<string, unknown> | undefined {
  let state = initial;
  for (const checkpoint of path) {
    if (checkpoint.state) state = checkpoint.state as Record<string, unknown>;
    else if (state) state = { ...state, ...(checkpoint.changes as Record<string, unknown>) };
  }
  return state;
}
