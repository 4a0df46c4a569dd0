import { createSseParser, type SseMessage } from './sse-parser';

const bytes = (text: string) => new TextEncoder().encode(text);

/** Parses `body` delivered as the given byte chunks. */
function parse(chunks: Uint8Array[]): SseMessage[] {
  const out: SseMessage[] = [];
  const parser = createSseParser((m) => out.push(m));
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return out;
}
const parseText = (body: string) => parse([bytes(body)]);

/** A run's stream as the gateway writes it: history, a heartbeat, a token, the end. */
const RUN_STREAM =
  'id: 1\nevent: run.queued\ndata: {"seq":1,"type":"run.queued"}\n\n' +
  ': heartbeat\n\n' +
  'event: token\ndata: {"spanId":"s1","delta":"héllo ✓"}\n\n' +
  'id: 2\nevent: run.completed\ndata: {"seq":2,"type":"run.completed"}\n\n';

describe('createSseParser', () => {
  it('reads named events, their ids and data, and skips comments (heartbeats)', () => {
    expect(parseText(RUN_STREAM)).toEqual([
      { event: 'run.queued', data: '{"seq":1,"type":"run.queued"}', lastEventId: '1' },
      // A frame without `id:` keeps the last one, as EventSource does.
      { event: 'token', data: '{"spanId":"s1","delta":"héllo ✓"}', lastEventId: '1' },
      { event: 'run.completed', data: '{"seq":2,"type":"run.completed"}', lastEventId: '2' },
    ]);
  });

  it('gives the same messages however the bytes are split, even inside a character or a CRLF', () => {
    const expected = parseText(RUN_STREAM);
    for (const ending of ['\n', '\r\n', '\r']) {
      const whole = bytes(RUN_STREAM.replaceAll('\n', ending));
      for (let at = 1; at < whole.length; at++) {
        expect(parse([whole.slice(0, at), whole.slice(at)])).toEqual(expected);
      }
      expect(parse([...whole].map((b) => Uint8Array.of(b)))).toEqual(expected);
    }
  });

  it('joins multi-line data with LF and accepts LF, CRLF and CR line endings', () => {
    const expected = [{ event: 'message', data: 'one\ntwo\n\nfour', lastEventId: '' }];
    expect(parseText('data: one\ndata: two\ndata:\ndata: four\n\n')).toEqual(expected);
    expect(parseText('data: one\r\ndata: two\r\ndata:\r\ndata: four\r\n\r\n')).toEqual(expected);
    expect(parseText('data: one\rdata: two\rdata:\rdata: four\r\r')).toEqual(expected);
  });

  it('removes one space after the colon only, and reads a field without a colon as empty', () => {
    expect(parseText('data:  two spaces\ndata:none\ndata\n\n')).toEqual([
      { event: 'message', data: ' two spaces\nnone\n', lastEventId: '' },
    ]);
  });

  it('dispatches nothing for a frame without data, but still takes its id', () => {
    expect(parseText('id: 7\nevent: ping\n\ndata: x\n\n')).toEqual([{ event: 'message', data: 'x', lastEventId: '7' }]);
  });

  it('resets the event name after each frame, and ignores retry, unknown fields and ids with NUL', () => {
    expect(parseText('event: a\ndata: 1\n\nretry: 10\nfoo: bar\nid: x\0y\ndata: 2\n\n')).toEqual([
      { event: 'a', data: '1', lastEventId: '' },
      { event: 'message', data: '2', lastEventId: '' },
    ]);
  });

  it('drops a frame the stream ended in the middle of, and strips a byte order mark', () => {
    expect(parseText('\uFEFFdata: whole\n\ndata: cut off')).toEqual([{ event: 'message', data: 'whole', lastEventId: '' }]);
  });
});
