import type { RunEvent, RunLineage, RunSummary } from '@spindle/contracts';
import { startStack, type Stack } from '@spindle/testing';

/** Three steps, a checkpoint after each: a fork can start after any of them. */
const steps = {
  kind: 'graph',
  nodes: [
    { id: 'one', type: 'set', values: { one: 1 } },
    { id: 'two', type: 'set', values: { two: 2 } },
    { id: 'three', type: 'set', values: { three: 3 } },
  ],
  edges: [
    { from: 'one', to: 'two' },
    { from: 'two', to: 'three' },
  ],
};

/** Who the admin key of a test stack is, in the log. */
const ADMIN = { kind: 'key', id: expect.any(String), name: 'bootstrap admin' };

describe("a run's lineage: forks, forks of forks, and the tree around any of them", () => {
  let stack: Stack;
  const json = async <T>(res: Response) => (await res.json()) as T;
  const post = (path: string, body: unknown = {}) => stack.api(path, { method: 'POST', body: JSON.stringify(body) });
  const log = async (runId: string) => (await json<{ events: RunEvent[] }>(await stack.api(`/v1/runs/${runId}/events`))).events;
  const ended = async (runId: string) => {
    const deadline = Date.now() + 30_000;
    while ((await log(runId)).at(-1)?.type !== 'run.completed') {
      if (Date.now() > deadline) throw new Error(`run ${runId} did not complete`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return runId;
  };
  const checkpoint = async (runId: string, step: number) =>
    (
      await json<{ checkpoints: Array<{ checkpointId: string; step: number; seq: number }> }>(
        await stack.api(`/v1/runs/${runId}/checkpoints`),
      )
    ).checkpoints.find((c) => c.step === step)!;
  const fork = async (runId: string, checkpointId: string) => {
    const res = await post(`/v1/runs/${runId}/fork`, { checkpointId });
    expect(res.status).toBe(202);
    return ended((await json<{ runId: string }>(res)).runId);
  };

  beforeAll(async () => {
    stack = await startStack();
    expect((await stack.api('/v1/workflows/steps', { method: 'PUT', body: JSON.stringify(steps) })).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers one tree, root first, for the root, a fork and a fork of a fork, each edge with its checkpoint and forker', async () => {
    const root = await ended((await json<{ runId: string }>(await post('/v1/workflows/steps/runs', { input: 'go' }))).runId);
    const rootCp1 = await checkpoint(root, 1);
    const rootCp2 = await checkpoint(root, 2);
    const child = await fork(root, rootCp1.checkpointId);
    const sibling = await fork(root, rootCp2.checkpointId);
    const childCp = (
      await json<{ checkpoints: Array<{ checkpointId: string; seq: number }> }>(await stack.api(`/v1/runs/${child}/checkpoints`))
    ).checkpoints[0]!;
    const grandchild = await fork(child, childCp.checkpointId);
    const unrelated = await ended((await json<{ runId: string }>(await post('/v1/workflows/steps/runs', { input: 'alone' }))).runId);

    const lineageOf = async (runId: string) => {
      const res = await stack.api(`/v1/runs/${runId}/lineage`);
      expect(res.status).toBe(200);
      return json<RunLineage>(res);
    };
    const fromGrandchild = await lineageOf(grandchild);
    expect(fromGrandchild).toMatchObject({ runId: grandchild, rootRunId: root, truncated: false });
    expect(fromGrandchild.runs.map((r) => [r.runId, r.depth])).toEqual([
      [root, 0],
      [child, 1],
      [grandchild, 2],
      [sibling, 1],
    ]);
    const [rootRow, childRow, grandchildRow, siblingRow] = fromGrandchild.runs;
    expect(rootRow).toMatchObject({ forkedFrom: null, workflow: { name: 'steps', version: 1 }, status: 'completed', startedBy: ADMIN });
    expect(childRow?.forkedFrom).toEqual({ runId: root, seq: rootCp1.seq, checkpointId: rootCp1.checkpointId, forkedBy: ADMIN });
    expect(siblingRow?.forkedFrom).toEqual({ runId: root, seq: rootCp2.seq, checkpointId: rootCp2.checkpointId, forkedBy: ADMIN });
    expect(grandchildRow?.forkedFrom).toEqual({ runId: child, seq: childCp.seq, checkpointId: childCp.checkpointId, forkedBy: ADMIN });
    for (const asked of [root, child, sibling]) expect((await lineageOf(asked)).runs).toEqual(fromGrandchild.runs);
    expect((await lineageOf(unrelated)).runs.map((r) => r.runId)).toEqual([unrelated]);

    // The list and the run itself name each fork's parent.
    const { runs } = await json<{ runs: RunSummary[] }>(await stack.api('/v1/runs?limit=10'));
    expect(runs.find((r) => r.runId === grandchild)?.forkedFrom).toMatchObject({ runId: child, seq: childCp.seq });
    expect(runs.find((r) => r.runId === root)?.forkedFrom).toBeNull();
    expect((await json<RunSummary>(await stack.api(`/v1/runs/${child}`))).forkedFrom).toMatchObject({ runId: root, forkedBy: ADMIN });

    // A read-only key reads it (another tenant's key finds nothing: the tenants e2e table).
    const viewer = await json<{ key: string }>(await post('/v1/keys', { name: 'lineage viewer', scopes: ['runs:read'] }));
    const asViewer = await fetch(`${stack.gatewayUrl}/v1/runs/${child}/lineage`, { headers: { authorization: `Bearer ${viewer.key}` } });
    expect(asViewer.status).toBe(200);
  });
});
