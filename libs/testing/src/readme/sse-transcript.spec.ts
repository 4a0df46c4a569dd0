import { AnswerBindings } from './answer-bindings';
import { isSseTranscript, parseSseTranscript, transcriptMismatches } from './sse-transcript';

const stream = (...frames: Array<[string | undefined, string, unknown]>) =>
  frames
    .map(([id, event, data]) => `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    .join(': heartbeat\n\n');

const run = [
  ['1', 'run.queued', { runId: 'R1', seq: 1, type: 'run.queued' }],
  ['2', 'run.started', { runId: 'R1', seq: 2, type: 'run.started' }],
  [undefined, 'token', { runId: 'R1', index: 0, delta: 'Hello ' }],
  [undefined, 'token', { runId: 'R1', index: 1, delta: 'Ada' }],
  ['3', 'run.completed', { runId: 'R1', seq: 3, type: 'run.completed', data: { output: { n: 2 } } }],
] as Array<[string | undefined, string, unknown]>;

const check = (transcript: string, actual = stream(...run)) =>
  transcriptMismatches(parseSseTranscript(transcript), actual, new AnswerBindings());

describe('event stream transcripts', () => {
  it('are told from tables by their first line', () => {
    expect(isSseTranscript('\nid: 1\nevent: x')).toBe(true);
    expect(isSseTranscript('kind   node')).toBe(false);
  });

  it('match a stream frame by frame, … lines standing for any frames, data as JSON sketches', () => {
    const transcript = [
      'id: 1',
      'event: run.queued',
      'data: {"runId":"R1",…}',
      '',
      'event: token',
      'data: {…,"index":0}',
      '…',
      'id: 3',
      'event: run.completed',
      'data: {…,"data":{"output":{"n":2}}}',
    ].join('\n');
    expect(check(transcript)).toEqual(['frame event: token (line 5): not found next; got id: 2 event: run.started']);
    expect(check(transcript.replace('data: {"runId":"R1",…}\n', 'data: {"runId":"R1",…}\n…\n'))).toEqual([]);
  });

  it('hold a frame shown without data: to its id and event only', () => {
    expect(check('id: 1\nevent: run.queued\n…\nid: 3\nevent: run.completed')).toEqual([]);
  });

  it('say what differs: a wrong id, a wrong datum, a frame that never comes, frames after the last one shown', () => {
    expect(check('id: 1\nevent: run.started\n…')).toEqual([
      'frame id: 1 event: run.started (line 1): not found next; got id: 1 event: run.queued',
    ]);
    expect(check('…\nid: 3\nevent: run.completed\ndata: {…,"data":{"output":{"n":3}}}')).toEqual([
      'frame id: 3 event: run.completed (line 2): data.data.output.n: expected 3, got 2',
    ]);
    expect(check('…\nid: 4\nevent: run.completed')).toEqual([
      'frame id: 4 event: run.completed (line 2): not found after the frames before it',
    ]);
    expect(check('id: 1\nevent: run.queued')).toEqual(['the stream goes on after the last frame shown: id: 2 event: run.started']);
  });

  it('refuse a frame with neither id: nor data:', () => {
    expect(() => parseSseTranscript('id: 1\nevent: a\n\nevent: b')).toThrow('line 4: a frame needs an id: or a data: line');
  });
});
