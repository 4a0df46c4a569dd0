import {
  createSpindleClient,
  isSpindleApiError,
  type AnswerBody,
  type ForkBody,
  type RunListFilter,
  type SpindleApiError,
  type SpindleClient,
  type StartRunOptions,
} from '@spindle/client';
import type { NewScoreBody } from '@spindle/contracts';
import { storedCredential } from '../auth/session-storage';
import type { RunsFilter } from '../model/runs-filter';

let credentialRejected: (problem: SpindleApiError) => void = () => undefined;

/** Called when the gateway answers `401` to the signed-in credential (revoked key, expired token). */
export function onCredentialRejected(listener: (problem: SpindleApiError) => void): void {
  credentialRejected = listener;
}

/**
 * Runs `call` with a client that sends the signed-in credential (none when authentication is
 * off). Every request of the call carries the credential it began with, so a `401` can be laid
 * at its door: it ends the session unless the credential changed meanwhile (a request of the
 * previous sign-in must not sign out the next one). The error is rethrown either way.
 */
export async function signedIn<T>(call: (client: SpindleClient) => Promise<T>): Promise<T> {
  const credential = storedCredential();
  try {
    return await call(createSpindleClient({ token: credential }));
  } catch (e) {
    if (isSpindleApiError(e) && e.status === 401 && credential !== undefined && storedCredential() === credential) credentialRejected(e);
    throw e;
  }
}

/**
 * A file's bytes (`GET /v1/files/{id}/content`) with the signed-in credential, for a thumbnail or
 * a download: an `<img src>` or a plain link could not send the credential. A refusal is shown on
 * the file, not taken as a sign-out (the next API call finds a rejected credential anyway).
 */
async function fileContent(contentPath: string, signal?: AbortSignal): Promise<Blob> {
  const credential = storedCredential();
  const res = await fetch(contentPath, { headers: credential ? { authorization: `Bearer ${credential}` } : {}, signal });
  if (!res.ok) throw new Error(res.status === 404 ? 'the file is gone' : `the file could not be read (HTTP ${res.status})`);
  return res.blob();
}

/** What the console asks of the gateway; every call but the public ones and the two sign-in checks is `signedIn`. */
export const api = {
  /** How to sign in (public). */
  authConfig: () => createSpindleClient().authConfig(),
  /** The OpenAPI document (public and static: read without a credential). */
  openapi: () => createSpindleClient().openapi(),
  /** Checks a credential before it is kept: a refusal is the caller's to show, not a sign-out. */
  me: (credential?: string) => createSpindleClient({ token: credential }).me(),
  workflows: () => signedIn((c) => c.workflows.list()),
  overview: (o: { workflow?: string; days: number }) => signedIn((c) => c.overview(o)),
  versions: (name: string) => signedIn((c) => c.workflows.versions(name)),
  graph: (name: string, version?: number) => signedIn((c) => c.workflows.graph(name, { version })),
  workflow: (name: string, version?: number) => signedIn((c) => c.workflows.get(name, { version })),
  diff: (name: string, from: number, to: number) => signedIn((c) => c.workflows.diff(name, from, to)),
  rollback: (name: string, version: number) => signedIn((c) => c.workflows.rollback(name, version)),
  /** What the live runners can run: functions and tools, each with the runners that have it. */
  capabilities: () => signedIn(async (c) => ({ ...(await c.functions()), ...(await c.tools()) })),
  startRun: (name: string, body: Pick<StartRunOptions, 'input' | 'state' | 'parameters' | 'version'>) =>
    signedIn((c) => c.runs.start(name, body)),
  /** One page of the runs the filter finds; empty fields are left out of the query. */
  runs: (filter: RunsFilter) =>
    signedIn((c) =>
      c.runs.list({
        q: filter.q || undefined,
        workflow: filter.workflow || undefined,
        status: (filter.status || undefined) as RunListFilter['status'],
        errorCode: filter.errorCode || undefined,
        parameter: filter.parameter || undefined,
        score: filter.score || undefined,
        from: filter.from || undefined,
        to: filter.to || undefined,
        internal: filter.internal === 'include' ? 'include' : undefined,
        sort: filter.sort,
        order: filter.order,
        cursor: filter.cursor || undefined,
        limit: 50,
      }),
    ),
  events: (runId: string, after = 0) => signedIn((c) => c.runs.events(runId, { after })),
  trace: (runId: string) => signedIn((c) => c.runs.trace(runId)),
  lineage: (runId: string) => signedIn((c) => c.runs.lineage(runId)),
  scores: (runId: string) => signedIn((c) => c.runs.scores(runId)),
  evaluations: (runId: string) => signedIn((c) => c.runs.evaluations(runId)),
  score: (runId: string, body: NewScoreBody) => signedIn((c) => c.runs.score(runId, body)),
  fork: (runId: string, body: ForkBody) => signedIn((c) => c.runs.fork(runId, body)),
  cancel: (runId: string, reason?: string) => signedIn((c) => c.runs.cancel(runId, { reason })),
  inbox: () => signedIn((c) => c.requests.list({ status: 'pending', limit: 200 })),
  runRequests: (runId: string) => signedIn((c) => c.runs.requests(runId)),
  // Who answers is the signed-in principal; `respondedBy` is for a key's client relaying a person.
  respond: (runId: string, requestId: string, body: AnswerBody) => signedIn((c) => c.requests.answer(runId, requestId, body)),
  threads: () => signedIn((c) => c.threads.list({ limit: 100 })),
  thread: (threadId: string) =>
    signedIn(async (c) => {
      const [thread, { runs }, state] = await Promise.all([c.threads.get(threadId), c.threads.runs(threadId), c.threads.state(threadId)]);
      return { thread, runs, state };
    }),
  schedules: () => signedIn((c) => c.schedules.list()),
  schedule: (scheduleId: string) =>
    signedIn(async (c) => {
      const [schedule, { firings }] = await Promise.all([c.schedules.get(scheduleId), c.schedules.firings(scheduleId)]);
      return { schedule, firings };
    }),
  /** Pause, resume or a firing now; the page reloads the schedule after. */
  changeSchedule: (scheduleId: string, change: 'pause' | 'resume' | 'trigger'): Promise<unknown> =>
    signedIn<unknown>((c) => (change === 'trigger' ? c.schedules.trigger(scheduleId) : c.schedules[change](scheduleId))),
  webhooks: () => signedIn((c) => c.webhooks.list()),
  webhookDeliveries: (webhookId: string) =>
    signedIn(async (c) => {
      const [webhook, page] = await Promise.all([c.webhooks.get(webhookId), c.webhooks.deliveries(webhookId, { limit: 50 })]);
      return { webhook, deliveries: page.deliveries };
    }),
  datasets: () => signedIn((c) => c.datasets.list()),
  addRunToDataset: (dataset: string, runId: string, withOutput: boolean) =>
    signedIn((c) => c.datasets.addItems(dataset, { fromRuns: [{ runId, withOutput }] })),
  experiments: () => signedIn((c) => c.experiments.list()),
  compareExperiments: (ids: readonly string[]) => signedIn((c) => c.experiments.compare(ids)),
  compareExperimentsCsv: (ids: readonly string[]) => signedIn((c) => c.experiments.compareCsv(ids)),
  replays: () => signedIn((c) => c.replays.list()),
  replay: (replayId: string) => signedIn((c) => c.replays.get(replayId)),
  fileContent,
};
