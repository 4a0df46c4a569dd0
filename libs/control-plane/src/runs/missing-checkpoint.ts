import { SpindleError, type RunEvent, type RunEventOf } from '@spindle/contracts';

/**
 * Why the checkpoint service has no checkpoint the log may name (the run's latest, or
 * `checkpointId`): the log never had it (404), it is past the checkpoint TTL and purged (410), or
 * the projection is only behind, restarting or catching up (503, worth a retry).
 */
export function missingCheckpointError(
  runId: string,
  log: readonly RunEvent[],
  asked: { checkpointId?: string; expiredBefore?: string },
): SpindleError {
  const saved = log.findLast(
    (e): e is RunEventOf<'checkpoint.saved'> =>
      e.type === 'checkpoint.saved' && (asked.checkpointId === undefined || e.data.checkpointId === asked.checkpointId),
  );
  if (!saved)
    return new SpindleError(
      'checkpoint_not_found',
      asked.checkpointId ? `run ${runId} has no checkpoint "${asked.checkpointId}"` : `run ${runId} has no checkpoint yet`,
    );
  if (asked.expiredBefore !== undefined && Date.parse(saved.at) < Date.parse(asked.expiredBefore))
    return new SpindleError(
      'checkpoint_expired',
      `checkpoint ${saved.data.checkpointId} of run ${runId} was saved at ${saved.at}, longer ago than the checkpoint TTL: it is purged`,
    );
  return new SpindleError('service_unavailable', `the checkpoint service has not caught up with run ${runId} yet; try again`);
}
