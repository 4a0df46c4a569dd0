/** For the specs of what a node's span holds: events of run `r1`, one second apart, on the `support` node's path. */
export const at = (seq: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString();

export const envelope = (seq: number, spanId: string, parentSpanId?: string) => ({
  runId: 'r1',
  seq,
  at: at(seq),
  spanId,
  path: 'root/support',
  nodeId: 'support',
  ...(parentSpanId ? { parentSpanId } : {}),
});

/** `run.queued` and the agent node `support` started under it (span `node-1`). */
export const queuedAndStarted = [
  {
    ...envelope(1, 'root'),
    path: 'root',
    nodeId: undefined,
    type: 'run.queued',
    data: { workflow: { name: 'w', version: 1 }, input: {}, state: {}, definition: {} },
  },
  { ...envelope(2, 'node-1', 'root'), type: 'node.started', data: { nodeType: 'agent', input: {} } },
];
