import { isSpindleError, SpindleError } from '@spindle/contracts';

/**
 * A pattern participant past its wait limit. A pattern nests its participants (in a loop, a fork
 * branch), and a nested failure becomes its container's; this one keeps the participant's node id,
 * so the run's error names the participant wherever it sat.
 */
export class ParticipantTimeout extends SpindleError {
  constructor(
    readonly participantNodeId: string,
    message: string,
  ) {
    super('participant_timeout', message);
  }
}

/** The participant node a failure (or the failure of a graph nested in a node) is the wait limit of. */
export function participantOf(error: unknown): string | undefined {
  return isSpindleError(error) && error.code === 'participant_timeout' && 'participantNodeId' in error
    ? (error.participantNodeId as string)
    : undefined;
}
