import { followRunLog, readRunLog, subscribeTokenDeltas, type Bus } from '@spindle/bus';
import type { Logger } from 'pino';
import { isRunId, SpindleError, type Principal, type RunEvent, type TokenDelta } from '@spindle/contracts';
import type { WorkflowCatalogRepository } from '../workflows/workflow-catalog.repository';

/** The workflow a protocol endpoint speaks for (A2A's agent, AG-UI's agent). */
export interface AgentWorkflow {
  name: string;
  version: number;
  definition: unknown;
}

/**
 * The log of a run of `workflow` in the caller's tenant, or `undefined` for any other id: a
 * protocol that names runs by id (an A2A task, an AG-UI interrupt) sees no other agent's or
 * tenant's runs.
 */
export async function readAgentRun(bus: Bus, caller: Principal, workflow: AgentWorkflow, runId: string): Promise<RunEvent[] | undefined> {
  const events = await readTenantRun(bus, caller, runId);
  const queued = events?.[0];
  return queued?.type === 'run.queued' && queued.data.workflow.name === workflow.name ? events : undefined;
}

/** The log of a run in the caller's tenant (of any workflow: an MCP task), or `undefined` for any other id. */
export async function readTenantRun(bus: Bus, caller: Principal, runId: string): Promise<RunEvent[] | undefined> {
  if (!isRunId(runId)) return undefined;
  const { events } = await readRunLog(bus, runId);
  const queued = events[0];
  return queued?.type === 'run.queued' && queued.data.tenant === caller.tenant ? events : undefined;
}

/** The workflow a protocol endpoint names, latest version; one that does not exist is `404 workflow_not_found`. */
export async function findAgentWorkflow(catalog: WorkflowCatalogRepository, caller: Principal, name: string): Promise<AgentWorkflow> {
  const found = await catalog.find(caller.tenant, name);
  if (!found) throw new SpindleError('workflow_not_found', `no workflow named "${name}"`);
  return { name, version: found.version, definition: found.definition };
}

/**
 * A run's events from its start, live to wherever the caller stops, each with the log up to and
 * including it (one array, grown in place: what a protocol's fold of the log reads). The reader
 * is stopped when the caller stops, or when `signal` aborts (the client left): the follow then
 * just ends.
 */
export async function* followWithLog(
  bus: Bus,
  runId: string,
  logger: Logger,
  signal?: AbortSignal,
): AsyncIterable<{ event: RunEvent; log: readonly RunEvent[] }> {
  const log: RunEvent[] = [];
  const follower = logFollower(bus, runId, logger);
  const stop = () => follower.stop();
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    for await (const { event } of follower) {
      log.push(event);
      yield { event, log };
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    follower.stop();
  }
}

/** What a live follower of a run yields: the log's next event (with the log so far), or a token delta. */
export type LiveRunItem = { event: RunEvent; log: readonly RunEvent[] } | { token: TokenDelta };

/**
 * `followWithLog` with the run's token deltas (core NATS) interleaved as they arrive, for a
 * protocol that streams text as the model says it, until `signal` says the client left. Tokens
 * are not ordered against the log here: `ModelTextStreams` does that, and says from the log
 * whatever a missed token did not.
 */
export async function* followWithTokens(bus: Bus, runId: string, logger: Logger, signal?: AbortSignal): AsyncIterable<LiveRunItem> {
  const tokens: TokenDelta[] = [];
  let wake = (): void => undefined;
  // Subscribed before the log is read: a token of a call the log has not reached yet waits for it.
  const subscription = subscribeTokenDeltas(bus, runId, {
    onMessage: (token) => {
      tokens.push(token);
      wake();
    },
    onInvalid: (subject, reason) => logger.warn({ subject, reason }, 'dropping a token delta that is not one'),
  });
  const log: RunEvent[] = [];
  const follower = logFollower(bus, runId, logger);
  const events = follower[Symbol.asyncIterator]();
  let pending = events.next();
  // The client left: the read ends (the run goes on; its log has everything).
  const leave = () => (follower.stop(), wake());
  signal?.addEventListener('abort', leave, { once: true });
  try {
    for (;;) {
      if (signal?.aborted) return;
      for (let token = tokens.shift(); token; token = tokens.shift()) yield { token };
      const tokenCame = new Promise<undefined>((resolve) => (wake = () => resolve(undefined)));
      const step = await Promise.race([pending, tokenCame]);
      if (step === undefined) continue;
      if (step.done) return;
      log.push(step.value.event);
      yield { event: step.value.event, log };
      pending = events.next();
    }
  } finally {
    signal?.removeEventListener('abort', leave);
    subscription.close();
    // Stopping ends the pending read (a generator's return() would wait behind it); a read that
    // fails after the caller left has no one to tell.
    follower.stop();
    pending.catch(() => undefined);
  }
}

/** A run's log from its start, live; a message that is not part of it is skipped and logged. */
function logFollower(bus: Bus, runId: string, logger: Logger) {
  return followRunLog(bus, runId, 0, {
    onSkip: (skipped) => logger.warn(skipped, 'skipping a message that is not part of the run log'),
  });
}
