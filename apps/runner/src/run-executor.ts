import { publishRunCommand, readRunLog, RunLogWriter } from '@spindle/bus';
import { isSpindleError, isTerminalEvent, type RunEventDraft, type RunEventOf } from '@spindle/contracts';
import { executeRun, type RunOutcome, type RunStart, type WorkflowDefinition } from '@spindle/engine';
import { planExecution } from '@spindle/projections';
import type { Logger } from 'pino';
import { prepareRun } from './execution/prepare-run';
import type { CommandDelivery, CommandResult, RunExecutorDeps } from './execution/run-executor.types';
import { RunSession, type RunToExecute } from './execution/run-session';

export type { CommandDelivery, CommandResult, RunExecutorDeps } from './execution/run-executor.types';

/**
 * Executes one run command (`run.start`, `run.resume`): reads the run's log (the only source of
 * what to run), decides from it, opens the run's session, executes the run (appending its
 * events), and reports whether the command can be acknowledged.
 */
export async function executeRunCommand(
  deps: RunExecutorDeps,
  runId: string,
  delivery: CommandDelivery,
  abort: AbortSignal,
): Promise<CommandResult> {
  const read = await readAndPlan(deps, runId, delivery.attempt);
  if (!('plan' in read)) return read.result;
  const session = new RunSession(deps, read, delivery, abort);
  try {
    const { plan } = read;
    if (plan.action === 'give_up') return await giveUp(session, plan.attempts);
    const prepared = prepareRun(session.definitionSource, read.queued);
    if (!prepared.ok) return await failInvalidDefinition(session, prepared.message);
    warnIfTimeoutClamped(deps, session);
    return await session.inSpan(async () => {
      const outcome = await stepping(deps, () => executeRun(runStart(deps, read.queued, plan, prepared), session.environment()));
      return settleOutcome(deps, session, outcome);
    });
  } catch (e) {
    return handBackOnFault(e, abort, session.logger);
  } finally {
    await session.close();
  }
}

/** Runs `execute` holding a step slot (given up by the run's ports while it waits on the world). */
async function stepping<T>(deps: RunExecutorDeps, execute: () => Promise<T>): Promise<T> {
  if (!deps.slots) return execute();
  await deps.slots.acquire();
  try {
    return await execute();
  } finally {
    deps.slots.release();
  }
}

/** The run's log and what to do with it; a command with nothing to do is settled here. */
async function readAndPlan(deps: RunExecutorDeps, runId: string, attempt: number): Promise<RunToExecute | { result: CommandResult }> {
  const { events, position } = await readRunLog(deps.bus, runId, 0, {
    onSkip: (skipped) => deps.logger.warn(skipped, 'skipping a message that is not part of the run log'),
  });
  const queued = events[0];
  if (!position || queued?.type !== 'run.queued')
    return { result: { deadLetter: `the log of run ${runId} has no run.queued event at seq 1` } };
  const plan = planExecution(events, attempt, deps.maxAttempts);
  if (plan.action === 'skip') {
    deps.logger.debug({ runId, why: plan.why }, 'nothing to execute');
    return { result: events.some(isTerminalEvent) ? 'done' : 'ignored' };
  }
  // A replay answers calls from the run it replays: that run's log, read once per execution.
  const replayOf = queued.data.replayOf;
  const recorded = replayOf ? (await readRunLog(deps.bus, replayOf.runId)).events : undefined;
  return { runId, events, position, queued, plan, ...(recorded && { recorded }) };
}

/** The runners executing this run kept dying: it closes `interrupted` rather than crash one more. */
async function giveUp(session: RunSession, attempts: number): Promise<CommandResult> {
  const message = `the runners executing this run stopped before it finished, ${attempts} times`;
  await session.log.write(runFailed(session.run.queued, { code: 'interrupted', message }));
  session.logger.warn({ attempts }, 'run closed interrupted: too many lost runners');
  return 'done';
}

/** A log the gateway would never have written (a definition that does not validate): the run fails, typed. */
async function failInvalidDefinition(session: RunSession, message: string): Promise<CommandResult> {
  await session.log.write(runFailed(session.run.queued, { code: 'invalid_definition', message }));
  session.logger.warn({ reason: message }, 'run failed: its log holds an invalid definition');
  return 'done';
}

function warnIfTimeoutClamped(deps: RunExecutorDeps, session: RunSession): void {
  if (!session.signal.clamped) return;
  session.logger.warn(
    { asked: session.signal.asked, ceiling: deps.runTimeoutCeilingMs },
    'the definition asks for a run timeout beyond the ceiling; using the ceiling',
  );
}

function runStart(
  deps: RunExecutorDeps,
  queued: RunEventOf<'run.queued'>,
  plan: Extract<RunToExecute['plan'], { action: 'start' | 'resume' }>,
  prepared: { definition: WorkflowDefinition; subgraphs: RunStart['subgraphs'] },
): RunStart {
  return {
    definition: prepared.definition,
    state: queued.data.state,
    subgraphs: prepared.subgraphs,
    attempt: plan.attempt,
    worker: deps.workerId,
    ...(queued.data.start ? { start: queued.data.start } : {}),
    ...(plan.action === 'resume'
      ? { resume: { reason: plan.reason, ...(plan.definitionVersion ? { definitionVersion: plan.definitionVersion } : {}) } }
      : {}),
  };
}

/** A finished or waiting run acknowledges its command; a run handed back is queued again. */
async function settleOutcome(deps: RunExecutorDeps, session: RunSession, outcome: RunOutcome): Promise<CommandResult> {
  const { plan } = session.run;
  session.logger.info(
    {
      status: outcome.status,
      lastSeq: session.log.lastSeq,
      ...(plan.action === 'resume' ? { resumed: plan.reason, attempt: plan.attempt } : {}),
    },
    outcome.status === 'awaiting' ? 'run waits for a person' : outcome.status === 'yielded' ? 'run handed back' : 'run finished',
  );
  return outcome.status === 'yielded' ? requeue(deps, session.run.runId, session.log.lastSeq, session.logger) : 'done';
}

/**
 * A run handed back at a checkpoint goes back to the queue as a fresh resume command (its own
 * message id and delivery count), so drains never use up the command's deliveries.
 */
async function requeue(deps: RunExecutorDeps, runId: string, yieldedSeq: number, logger: Logger): Promise<CommandResult> {
  try {
    await publishRunCommand(deps.bus, { type: 'run.resume', runId, afterSeq: yieldedSeq, issuedAt: new Date().toISOString() });
    return 'requeued';
  } catch (err) {
    logger.warn({ err }, 'could not queue the handed-back run again; redelivering its command instead');
    return 'handed_back';
  }
}

/** NATS gone quiet, the run taken by another runner, or the grace period over: never the run's failure. */
function handBackOnFault(e: unknown, abort: AbortSignal, logger: Logger): CommandResult {
  if (isSpindleError(e) && (e.code === 'bus_unavailable' || e.code === 'storage_full')) {
    logger.warn({ err: e }, 'NATS did not answer or has no room: handing the run back to continue once it does');
    return 'bus_unavailable';
  }
  if (isSpindleError(e) && e.code === 'run_lost') {
    if (abort.aborted) {
      logger.warn('shutdown grace period over: handing the run back mid-step');
      return 'handed_back';
    }
    logger.warn({ err: e }, 'another runner owns this run; stopping');
    return 'lost';
  }
  throw e;
}

function runFailed(queued: RunEventOf<'run.queued'>, error: { code: 'interrupted' | 'invalid_definition' | 'internal'; message: string }) {
  const event: RunEventDraft = { type: 'run.failed', spanId: queued.spanId, path: 'root', data: { error, durationMs: 0 } };
  return event;
}

/**
 * Closes a run whose command is given up on (its execution kept failing for a reason nobody
 * could classify), so it does not sit `queued` or `running` for ever. Best effort: the command
 * is in the dead-letter stream either way.
 */
export async function failAbandonedRun(deps: RunExecutorDeps, runId: string, message: string): Promise<boolean> {
  const { events, position } = await readRunLog(deps.bus, runId);
  const queued = events[0];
  if (!position || queued?.type !== 'run.queued' || events.some(isTerminalEvent)) return false;
  await new RunLogWriter(deps.bus, runId, position, { retryForMs: 5_000 }).write(runFailed(queued, { code: 'internal', message }));
  return true;
}
