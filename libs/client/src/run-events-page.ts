import { checkRunEvent, type RunEvent, type RunEventsPage } from '@spindle/contracts';
import type { HttpTransport } from './http-transport';
import { SpindleProtocolError } from './spindle-errors';

/** `GET /v1/runs/{id}/events?after=` as JSON, every event checked against the run event schema. */
export async function readRunEventsPage(
  transport: HttpTransport,
  runId: string,
  after: number,
  signal?: AbortSignal,
): Promise<RunEventsPage> {
  const path = `/v1/runs/${encodeURIComponent(runId)}/events`;
  const page = await transport.json<RunEventsPage>(path, { query: { after: after || undefined }, signal });
  if (!Array.isArray(page?.events)) throw new SpindleProtocolError(transport.url(path), 'no events array in the answer');
  return { ...page, events: page.events.map((e) => checkedEvent(e, transport.url(path))) };
}

/** The run event a JSON value is, or a protocol error naming where it came from. */
export function checkedEvent(value: unknown, url: string): RunEvent {
  const checked = checkRunEvent(value);
  if (!checked.ok) throw new SpindleProtocolError(url, checked.reason);
  return checked.event;
}
