import { api } from '../api/client';
import { ForkTreeView } from './ForkTree';
import { usePolling } from './usePolling';

/**
 * The forks of a thread's runs, one tree per run that has any. A fork starts from one of a run's
 * checkpoints and is a run of its own: it does not join the thread or change its state.
 */
export function ThreadForks({ runIds }: { runIds: readonly string[] }) {
  const { data, error } = usePolling(() => Promise.all(runIds.map((id) => api.lineage(id))), 5000, [runIds.join(',')]);
  if (error) return <p className="error">forks: {error}</p>;
  if (!data) return null;
  const forked = data.filter((lineage) => lineage.runs.length > 1);
  return (
    <div data-testid="thread-forks">
      {forked.length === 0 ? (
        <p className="muted">No run of this thread has been forked (a run&apos;s page forks it from a checkpoint).</p>
      ) : (
        <>
          <p className="muted">A fork is a run of its own: it starts from a checkpoint of a thread run and leaves the thread as it is.</p>
          {forked.map((lineage) => (
            <ForkTreeView key={lineage.runs[0]!.runId} lineage={lineage} />
          ))}
        </>
      )}
    </div>
  );
}
