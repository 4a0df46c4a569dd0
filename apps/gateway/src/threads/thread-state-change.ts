import { randomBytes } from 'node:crypto';
import { EMPTY_LOG, RunLogWriter, type Bus } from '@spindle/bus';
import { EMPTY_USAGE, type Principal } from '@spindle/contracts';

/** The workflow name a thread's state change is recorded under (no catalog name can start with `_`). */
export const THREAD_STATE_WORKFLOW = '_thread_state';

/** What a state change's log says it ran: a graph of one `set` node that sets nothing (it never runs). */
const DEFINITION = { kind: 'graph', nodes: [{ id: 'state', type: 'set', values: {} }], edges: [] };

/**
 * Writes a state change as a finished run of its own: `run.queued` on the thread and
 * `run.completed` with the new state, in one go, so every reader of the log (the thread
 * projection, the trace) sees who changed the state to what, and when.
 */
export async function recordStateChange(
  bus: Bus,
  runId: string,
  caller: Principal,
  thread: { id: string; position: number },
  state: Record<string, unknown>,
): Promise<void> {
  const log = new RunLogWriter(bus, runId, EMPTY_LOG);
  const root = { spanId: randomBytes(8).toString('hex'), path: 'root' };
  await log.append({
    type: 'run.queued',
    ...root,
    data: {
      workflow: { name: THREAD_STATE_WORKFLOW, version: 1 },
      input: null,
      state,
      definition: DEFINITION,
      tenant: caller.tenant,
      startedBy: caller.actor,
      thread: { ...thread, multitaskStrategy: 'reject' },
    },
  });
  await log.append({ type: 'run.completed', ...root, data: { output: state, durationMs: 0, usage: EMPTY_USAGE } });
  await log.durable();
}
