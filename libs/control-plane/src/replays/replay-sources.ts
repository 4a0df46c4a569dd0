import { firstEventOf, lastEventOf, type Bus } from '@spindle/bus';
import { DEFAULT_TENANT, isRunId, isTerminalEvent, SpindleError, type RunEventOf, type StartRunBody } from '@spindle/contracts';

type Queued = RunEventOf<'run.queued'>;

/**
 * A recorded run a replay may re-drive: the caller's, of the workflow replayed, ended, and not a
 * fork (a fork began at its parent's checkpoint, which a replay from the entry would not). Refused
 * with the field that names it; another tenant's run is not found, like one that does not exist.
 */
export async function requireReplayable(bus: Bus, tenant: string, workflow: string, runId: string, field: string): Promise<Queued> {
  const issue = (message: string) => ({ issues: [{ field, message }] });
  const queued = isRunId(runId) ? await firstEventOf(bus, runId) : undefined;
  if (!queued || (queued.data.tenant ?? DEFAULT_TENANT) !== tenant)
    throw new SpindleError('run_not_found', `no run with id "${runId}"`, issue('no such run'));
  if (queued.data.workflow.name !== workflow)
    throw new SpindleError(
      'validation_failed',
      `run ${runId} is a run of "${queued.data.workflow.name}", not "${workflow}"`,
      issue('a run of another workflow'),
    );
  if (queued.data.forkedFrom)
    throw new SpindleError('validation_failed', `run ${runId} is a fork: replay the run it was forked from`, issue('a fork'));
  const last = await lastEventOf(bus, runId);
  if (!last || !isTerminalEvent(last.event))
    throw new SpindleError('run_active', `run ${runId} has not ended: only an ended run has a recording to replay`, issue('not ended'));
  return queued;
}

/** The start of a replay run: the recorded run's input, state and parameters, through `version`. */
export function replayStartBody(queued: Queued, version: number): StartRunBody {
  // The starter puts the input and parameters into state itself.
  const { input: _input, parameters: _parameters, ...state } = queued.data.state;
  return {
    input: queued.data.input,
    state,
    version,
    ...(queued.data.parameters ? { parameters: queued.data.parameters } : {}),
  };
}
