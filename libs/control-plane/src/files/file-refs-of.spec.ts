import type { FileRef, RunEvent } from '@spindle/contracts';
import { fileRefsIn, fileRefsOf } from './file-refs-of';

const ref = (n: number): FileRef => ({
  type: 'file',
  fileId: `file_${String(n).padStart(26, 'a')}`,
  mediaType: 'image/png',
  bytes: n,
  sha256: String(n)
    .repeat(64)
    .slice(0, 64)
    .replace(/[^0-9a-f]/g, 'a'),
});
const envelope = { runId: '01JQ0000000000000000000000', seq: 1, at: '2026-01-01T00:00:00Z', spanId: 's', path: 'root' };
const event = (type: string, data: unknown) => ({ ...envelope, type, data }) as RunEvent;

describe('fileRefsOf', () => {
  it('finds references where a run takes files in: its input and state, an answer, a tool result, a model call', () => {
    const queued = event('run.queued', {
      workflow: { name: 'wf', version: 1 },
      input: { files: [ref(1)] },
      state: { input: { files: [ref(1)] }, earlier: { deep: [[ref(2)]] } },
      definition: {},
    });
    expect(fileRefsOf(queued)).toEqual([ref(1), ref(2)]);
    expect(
      fileRefsOf(event('input.answered', { requestId: 'r', answer: { data: { photo: ref(3) } }, answeredBy: { kind: 'key', id: 'k' } })),
    ).toEqual([ref(3)]);
    expect(fileRefsOf(event('tool.returned', { name: 't', callId: 'c', result: [ref(4)], durationMs: 1 }))).toEqual([ref(4)]);
    expect(fileRefsOf(event('model.started', { model: 'm', stream: false, attachments: [ref(5)] }))).toEqual([ref(5)]);
  });

  it('finds none in events that only repeat what came in, and none in a part that was never resolved', () => {
    expect(fileRefsOf(event('node.completed', { nodeType: 'set', output: { f: ref(1) }, durationMs: 1 }))).toEqual([]);
    expect(
      fileRefsOf(event('checkpoint.saved', { checkpointId: 'c', step: 1, changes: { f: ref(1) }, frontier: [], graphHash: 'h' })),
    ).toEqual([]);
    expect(fileRefsIn({ type: 'file', fileId: ref(1).fileId })).toEqual([]);
  });

  it('stops at its bounds', () => {
    let deep: unknown = ref(1);
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(fileRefsIn(deep)).toEqual([]);
    expect(fileRefsIn(Array.from({ length: 5_000 }, (_, i) => ref(i)))).toHaveLength(1_024);
    expect(fileRefsIn(Array.from({ length: 5_000 }, () => ref(1)))).toEqual([ref(1)]);
  });
});
