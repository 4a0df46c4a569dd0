import type { RunSummary } from '@spindle/contracts';
import { forkOrigin, runDetail, runTable, shortRunId } from './run-tables';

const parentId = '01M98W9V2N06YGCSGNHJTABZ6V';
const run: RunSummary = {
  runId: '01M98W9V53BXEG5XHKXDC3MBRJ',
  workflow: { name: 'hello', version: 1 },
  status: 'completed',
  queuedAt: '2026-12-07T18:29:49.000Z',
  startedAt: '2026-12-07T18:29:49.100Z',
  endedAt: '2026-12-07T18:29:49.500Z',
  wallMs: 500,
  workingMs: 500,
  usage: { inputTokens: 12, outputTokens: 10, totalTokens: 22, costUsd: 0 },
  error: null,
  lastSeq: 17,
  forkedFrom: null,
  tenant: 'default',
  startedBy: null,
  canceledBy: null,
};
const fork: RunSummary = {
  ...run,
  runId: '01M98WA1GNC4CAP73APTHYTX21',
  forkedFrom: { runId: parentId, seq: 5, checkpointId: 'cp-1', forkedBy: { kind: 'key', id: 'k1', name: 'bootstrap admin' } },
};

describe('the runs tables', () => {
  it("lists runs with a parent column: a fork's parent by the tail of its id, '-' for a run that is no fork", () => {
    expect(runTable([fork, run])).toEqual([
      'run                         workflow  status     queued                      wall  working  tokens  cost  parent',
      '01M98WA1GNC4CAP73APTHYTX21  hello v1  completed  2026-12-07T18:29:49.000Z  500 ms   500 ms      22    $0  …GNHJTABZ6V',
      '01M98W9V53BXEG5XHKXDC3MBRJ  hello v1  completed  2026-12-07T18:29:49.000Z  500 ms   500 ms      22    $0  -',
    ]);
    expect(shortRunId(parentId)).toBe('…GNHJTABZ6V');
  });

  it('says where a fork came from as the console does: the parent in full, the checkpoint and its event, who forked it', () => {
    expect(runDetail(fork)).toContainEqual(`forked from   ${parentId} at cp-1 (event 5) by bootstrap admin`);
    expect(runDetail(run)).toContainEqual('forked from   -');
  });

  it('names what the log holds of a fork: no checkpoint id, no one recorded, a key acting for a person', () => {
    expect(forkOrigin({ runId: parentId, seq: 9 })).toBe(`${parentId} at event 9`);
    expect(forkOrigin({ runId: parentId, seq: 9, checkpointId: 'cp-2', forkedBy: { kind: 'key', id: 'k2', name: '' } })).toBe(
      `${parentId} at cp-2 (event 9) by k2`,
    );
    expect(
      forkOrigin({ runId: parentId, seq: 9, checkpointId: 'cp-2', forkedBy: { kind: 'key', id: 'k2', name: 'ci', onBehalfOf: 'ada' } }),
    ).toBe(`${parentId} at cp-2 (event 9) by ci on behalf of ada`);
  });
});
