/**
 * The decisions of a keyed creation (start or fork) that meets a key already held, or fails.
 *
 * A key is claimed in Postgres before the run's `run.queued` is appended, so a key can name a run
 * whose log was never written: its gateway died between the two writes, or is still between
 * them. The log is the truth: a run exists when its `run.queued` is in its log. So a retry whose
 * key names a run without one completes the creation itself, with the run id the key holds (the
 * request hash is equal, so the request is the same). Two creators of one run id cannot both
 * write it: `run.queued` is seq 1, appended expecting an empty subject under message id
 * `<runId>:1`, so the second append is refused (`run_lost`) and that creator answers as a replay.
 */

/** What a request does with a key another request holds. */
export type HeldKeyAnswer =
  /** A different request under the key: `idempotency_key_reused`. */
  | 'refuse'
  /** The run the key names is in the log: answer what the key stores, create nothing. */
  | 'replay'
  /** The run the key names was never queued: create it, under the key's run id. */
  | 'complete';

export function answerHeldKey(held: { sameRequest: boolean; runQueued: boolean }): HeldKeyAnswer {
  if (!held.sameRequest) return 'refuse';
  return held.runQueued ? 'replay' : 'complete';
}

/** What a keyed creation does with its key when creating failed. */
export type FailedCreationAnswer =
  /** The run is not in the log: give the key back, so a retry may even change the request. */
  | 'release'
  /** The run is (or may be) in the log: keep the key so a retry replays or completes it; fail. */
  | 'keep'
  /** Another creator appended this very run's `run.queued` first: the run exists, answer it. */
  | 'replay';

/** `runQueued` is `undefined` when the log could not be read: the key is kept, never given back blind. */
export function answerFailedCreation(failed: { runQueued: boolean | undefined; lostAppend: boolean }): FailedCreationAnswer {
  if (failed.runQueued === undefined) return 'keep';
  if (!failed.runQueued) return 'release';
  return failed.lostAppend ? 'replay' : 'keep';
}
