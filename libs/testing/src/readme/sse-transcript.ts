import { parseBlock, parseSseText } from '../sse-client';
import type { AnswerBindings } from './answer-bindings';
import { ELLIPSIS, parseJsonSketch, type JsonSketch } from './json-sketch';
import { sketchMismatches } from './json-sketch-match';

/**
 * An event stream as the README shows it: frames (`id:`, `event:`, `data:` lines, a blank line
 * between) and lines of `…` alone, each standing for any number of frames (none too). A frame's
 * `id:` and `event:` must be exactly those of the real frame at its place (a frame shown without
 * `id:` has none, as `token` frames); its `data:` is a JSON sketch; a frame shown without `data:`
 * has its data unchecked.
 */
export type TranscriptItem = { kind: 'gap' } | { kind: 'frame'; id?: string; event: string; data?: JsonSketch; line: number };

export function isSseTranscript(text: string): boolean {
  return /^(id|event|data):/.test(text.trimStart());
}

export function parseSseTranscript(text: string): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  let block: string[] = [];
  let blockLine = 0;
  const flush = () => {
    if (block.length === 0) return;
    const frame = parseBlock(block.join('\n'));
    if (!frame) throw new Error(`line ${blockLine}: a frame needs an id: or a data: line`);
    items.push({
      kind: 'frame',
      ...(frame.id !== undefined ? { id: frame.id } : {}),
      event: frame.event,
      ...(frame.data !== '' ? { data: parseJsonSketch(frame.data) } : {}),
      line: blockLine,
    });
    block = [];
  };
  text.split('\n').forEach((line, i) => {
    if (line.trim() === ELLIPSIS) {
      flush();
      if (items[items.length - 1]?.kind !== 'gap') items.push({ kind: 'gap' });
    } else if (line.trim() === '') {
      flush();
    } else {
      if (block.length === 0) blockLine = i + 1;
      block.push(line);
    }
  });
  flush();
  return items;
}

/**
 * How the stream `actual` (the text of an event stream) differs from the transcript: frames are
 * placed in order, each after a gap at the first real frame with its `id:` and `event:`; then each
 * placed frame's data is compared.
 */
export function transcriptMismatches(transcript: TranscriptItem[], actual: string, bindings: AnswerBindings): string[] {
  const frames = parseSseText(actual);
  const out: string[] = [];
  let next = 0;
  let afterGap = false;
  for (const item of transcript) {
    if (item.kind === 'gap') {
      afterGap = true;
      continue;
    }
    const shown = `frame ${item.id !== undefined ? `id: ${item.id} ` : ''}event: ${item.event} (line ${item.line})`;
    const sameFrame = (i: number) => frames[i].event === item.event && frames[i].id === item.id;
    let at = next;
    if (afterGap) while (at < frames.length && !sameFrame(at)) at++;
    if (at >= frames.length || !sameFrame(at)) {
      const got = at < frames.length ? `id: ${frames[at].id ?? '(none)'} event: ${frames[at].event}` : 'the end of the stream';
      out.push(`${shown}: not found ${afterGap ? 'after the frames before it' : `next; got ${got}`}`);
      return out;
    }
    if (item.data) out.push(...dataMismatches(item.data, frames[at].data, bindings).map((m) => `${shown}: ${m}`));
    next = at + 1;
    afterGap = false;
  }
  if (!afterGap && next < frames.length) {
    out.push(`the stream goes on after the last frame shown: id: ${frames[next].id ?? '(none)'} event: ${frames[next].event}`);
  }
  return out;
}

function dataMismatches(sketch: JsonSketch, data: string, bindings: AnswerBindings): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return [`data is not JSON: ${data.slice(0, 80)}`];
  }
  return sketchMismatches(sketch, parsed, bindings, 'data');
}
