import type { AttemptFailure, UsageReport, UserCodeVoice } from '@spindle/engine';

/** What a test's user code said, in order, where the engine would have appended it to the log. */
export type Said = { emit: { name: string; data: unknown } } | { usage: UsageReport } | { attempt: AttemptFailure };

/** A voice for calling plugin functions and tools outside a run: it records what the code says. */
export function recordingVoice(): UserCodeVoice & { said: Said[] } {
  const said: Said[] = [];
  return {
    said,
    emit: async (name, data) => void said.push({ emit: { name, data } }),
    reportUsage: async (usage) => void said.push({ usage }),
    attemptFailed: async (attempt) => void said.push({ attempt }),
  };
}
