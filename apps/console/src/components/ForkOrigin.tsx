import { type ForkPoint, forkOriginText } from '@spindle/contracts';

/** Where the fork `runId` came from: "forked from <run> at cp-2 (event 7) by alice", with a link to compare the two. */
export function ForkOrigin({ runId, forkedFrom }: { runId: string; forkedFrom: ForkPoint }) {
  const { at, by } = forkOriginText(forkedFrom);
  return (
    <div className="fork-origin" data-testid="fork-origin">
      forked from{' '}
      <a className="mono" href={`#/runs/${forkedFrom.runId}`}>
        {forkedFrom.runId}
      </a>{' '}
      at {at}
      {by && ` by ${by}`} ·{' '}
      <a href={`#/compare/${forkedFrom.runId}/${runId}`} data-testid="compare-with-parent">
        compare with it
      </a>
    </div>
  );
}
