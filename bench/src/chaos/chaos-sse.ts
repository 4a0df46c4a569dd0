import { isDeepStrictEqual } from 'node:util';
import { readRunLog, type Bus } from '@spindle/bus';
import { isTerminalEvent, type RunEvent } from '@spindle/contracts';
import { readSse } from '@spindle/testing';

/** One SSE client of a run: every event it received, over every connection it made. */
export interface Follower {
  runId: string;
  events: RunEvent[];
  connections: number;
  /** Answers other than a stream (503 while the gateway starts, say), by status. */
  refusals: Record<string, number>;
  ended: boolean;
}

/**
 * Follows a run's events as a client that reconnects does: whenever its stream breaks (the
 * gateway died), it connects again with `Last-Event-ID` of the last seq it received, until it
 * has the terminal event or the deadline passes. `connected` resolves on its first frame.
 */
export function follow(gatewayUrl: string, auth: Record<string, string>, runId: string, deadline: number) {
  const follower: Follower = { runId, events: [], connections: 0, refusals: {}, ended: false };
  let onConnected!: () => void;
  const connected = new Promise<void>((resolve) => (onConnected = resolve));
  const done = (async () => {
    while (!follower.ended && Date.now() < deadline) {
      const lastSeq = follower.events.at(-1)?.seq;
      follower.connections++;
      try {
        const { status } = await readSse(
          `${gatewayUrl}/v1/runs/${runId}/events`,
          { headers: { ...auth, ...(lastSeq === undefined ? {} : { 'last-event-id': String(lastSeq) }) } },
          (frame) => {
            onConnected();
            if (frame.id === undefined) return;
            const event = JSON.parse(frame.data) as RunEvent;
            follower.events.push(event);
            if (isTerminalEvent(event)) {
              follower.ended = true;
              return false;
            }
          },
        );
        if (status !== 200) follower.refusals[status] = (follower.refusals[status] ?? 0) + 1;
      } catch {
        // The gateway went away mid-stream or refused the connection: connect again.
      }
      if (!follower.ended) await new Promise((r) => setTimeout(r, 200));
    }
    onConnected();
    return follower;
  })();
  return { follower, connected, done };
}

/**
 * What a follower received against the run's log, event by event: seq 1, 2, … with no gap and
 * no repeat, each event exactly the log's, the terminal event last and nothing after it.
 */
export async function checkFollower(bus: Bus, follower: Follower): Promise<string[]> {
  const { events: log } = await readRunLog(bus, follower.runId);
  const got = follower.events;
  const violations: string[] = [];
  const firstOff = got.findIndex((e, i) => e.seq !== i + 1);
  if (firstOff >= 0) violations.push(`event ${firstOff + 1} it received has seq ${got[firstOff].seq} (a gap or a repeat)`);
  const differs = got.findIndex((e, i) => i < log.length && !isDeepStrictEqual(e, json(log[i])));
  if (differs >= 0) violations.push(`its event ${differs + 1} differs from the log's`);
  if (!follower.ended) violations.push(`never received the terminal event (${got.length} of ${log.length} events)`);
  else if (got.length !== log.length) violations.push(`received ${got.length} events, the log holds ${log.length}`);
  return violations;
}

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
