import type { RunEventDraft, RunEventOf, TokenDelta } from '@spindle/contracts';
import { ModelTextStreams, type TextPiece } from './model-text-streams';
import { queued, runLog, usage } from './run-events.fixture';

const runId = '01JQ0000000000000000000000';
const model = { nodeId: 'agent', spanId: 'span-call', parentSpanId: 'span-agent', path: 'root/agent' };

/** A log with one model call at seq 2, answering `text` after `reasoning`. */
function call(text: string, reasoning?: string) {
  const drafts: RunEventDraft[] = [
    queued(),
    { type: 'model.started', ...model, data: { model: 'compatible:m', prompt: 'hi', stream: true } },
    {
      type: 'model.completed',
      ...model,
      data: { model: 'compatible:m', text, ...(reasoning !== undefined && { reasoning }), usage: usage(1, 2), durationMs: 9 },
    },
  ];
  const [, started, completed] = runLog(runId, drafts);
  return { started: started as RunEventOf<'model.started'>, completed: completed as RunEventOf<'model.completed'> };
}

const token = (callIndex: number, delta: string, part?: 'reasoning', callSeq = 2): TokenDelta => ({
  runId,
  nodeId: 'agent',
  spanId: 'span-agent',
  afterSeq: 1,
  index: callIndex,
  delta,
  callSeq,
  callIndex,
  ...(part && { part }),
});

/** What a reader ends up holding: each segment's text by id, in the order segments opened. */
function said(pieces: TextPiece[]): Array<[string, string]> {
  const texts = new Map<string, string>();
  const open = new Set<string>();
  for (const piece of pieces) {
    if (piece.kind === 'start') {
      expect(texts.has(piece.id)).toBe(false);
      texts.set(piece.id, '');
      open.add(piece.id);
    } else {
      expect(open.has(piece.id)).toBe(true);
      if (piece.kind === 'delta') texts.set(piece.id, texts.get(piece.id) + piece.delta);
      else open.delete(piece.id);
    }
  }
  expect([...open]).toEqual([]);
  return [...texts];
}

describe('ModelTextStreams: tokens as they come, the log for what they did not say', () => {
  it('streams each token of a call in order, and at its end says only the rest', () => {
    const { started, completed } = call('Hello there, Ada.');
    const texts = new ModelTextStreams();
    const pieces = [...texts.opened(started), ...texts.token(token(0, 'Hello ')), ...texts.token(token(1, 'there, '))];
    expect(pieces).toEqual([
      { kind: 'start', id: 'span-call', part: 'text' },
      { kind: 'delta', id: 'span-call', part: 'text', delta: 'Hello ' },
      { kind: 'delta', id: 'span-call', part: 'text', delta: 'there, ' },
    ]);
    const end = texts.completed(completed);
    expect(end).toEqual([
      { kind: 'delta', id: 'span-call', part: 'text', delta: 'Ada.' },
      { kind: 'end', id: 'span-call', part: 'text' },
    ]);
    expect(said([...pieces, ...end])).toEqual([['span-call', 'Hello there, Ada.']]);
  });

  it('holds tokens that arrive before the log opens their call, and drops those that arrive after it ended', () => {
    const { started, completed } = call('one two');
    const texts = new ModelTextStreams();
    expect(texts.token(token(1, 'two'))).toEqual([]);
    expect(texts.token(token(0, 'one '))).toEqual([]);
    const opened = texts.opened(started);
    expect(opened.filter((p) => p.kind === 'delta').map((p) => (p as { delta: string }).delta)).toEqual(['one ', 'two']);
    const end = texts.completed(completed);
    expect(texts.token(token(2, ' late'))).toEqual([]);
    expect(said([...opened, ...end])).toEqual([['span-call', 'one two']]);
  });

  it('stops streaming at a missing token (or one joined mid-call) and says the rest from the log, nothing twice', () => {
    const { started, completed } = call('a b c d');
    const texts = new ModelTextStreams();
    const pieces = [
      ...texts.opened(started),
      ...texts.token(token(0, 'a ')),
      ...texts.token(token(2, 'c ')),
      ...texts.token(token(3, 'd')),
      ...texts.token(token(0, 'a ')),
    ];
    expect(pieces.filter((p) => p.kind === 'delta')).toHaveLength(1);
    expect(said([...pieces, ...texts.completed(completed)])).toEqual([['span-call', 'a b c d']]);
  });

  it('says the whole text at the end when it saw no token, and nothing for an empty answer', () => {
    const whole = call('All of it.');
    const texts = new ModelTextStreams();
    expect(said([...texts.opened(whole.started), ...texts.completed(whole.completed)])).toEqual([['span-call', 'All of it.']]);
    const empty = call('');
    expect([...texts.opened(empty.started), ...texts.completed(empty.completed)]).toEqual([]);
    // A fresh reader of a completed event alone (no model.started seen) says it whole too.
    expect(said(new ModelTextStreams().completed(whole.completed))).toEqual([['span-call', 'All of it.']]);
  });

  it('keeps reasoning and text apart, closing one before the other opens, and completes both from the log', () => {
    const { started, completed } = call('It is 4.', 'Two and two make four.');
    const texts = new ModelTextStreams();
    const pieces = [
      ...texts.opened(started),
      ...texts.token(token(0, 'Two and ', 'reasoning')),
      ...texts.token(token(1, 'two make four.', 'reasoning')),
      ...texts.token(token(2, 'It ')),
    ];
    expect(pieces.map((p) => `${p.kind}:${p.id}`)).toEqual([
      'start:span-call:reasoning',
      'delta:span-call:reasoning',
      'delta:span-call:reasoning',
      'end:span-call:reasoning',
      'start:span-call',
      'delta:span-call',
    ]);
    expect(said([...pieces, ...texts.completed(completed)])).toEqual([
      ['span-call:reasoning', 'Two and two make four.'],
      ['span-call', 'It is 4.'],
    ]);
  });

  it('ends what a failed call streamed, and ignores tokens of a runner that does not number calls', () => {
    const { started } = call('unused');
    const failed = runLog(runId, [
      queued(),
      {
        type: 'model.failed',
        ...model,
        data: { model: 'compatible:m', error: { code: 'provider_error', message: 'down' }, durationMs: 3 },
      },
    ])[1] as RunEventOf<'model.failed'>;
    const texts = new ModelTextStreams();
    const { callSeq: _seq, callIndex: _index, ...unnumbered } = token(0, 'ignored');
    const pieces = [...texts.opened(started), ...texts.token(unnumbered), ...texts.token(token(0, 'Part'))];
    expect(said([...pieces, ...texts.failed(failed)])).toEqual([['span-call', 'Part']]);
  });
});
