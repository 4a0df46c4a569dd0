import type { AnswerBindings } from './answer-bindings';
import { parseJsonSketch } from './json-sketch';
import { sketchMismatches } from './json-sketch-match';
import type { ReadmeAnswer } from './readme-examples';
import { isSseTranscript, parseSseTranscript, transcriptMismatches } from './sse-transcript';
import { tableMismatches } from './text-table';

/**
 * How what a command printed differs from the answer the README shows after it: a ```json answer
 * is a JSON sketch of the one JSON value printed; a ```text answer is an event stream transcript
 * when it starts with `id:`, `event:` or `data:`, else a table.
 */
export function answerMismatches(answer: ReadmeAnswer, printed: string, bindings: AnswerBindings): string[] {
  if (answer.lang === 'json') {
    let actual: unknown;
    try {
      actual = JSON.parse(printed);
    } catch {
      return [`expected one JSON value, got: ${printed.slice(0, 200)}`];
    }
    return sketchMismatches(parseJsonSketch(answer.text), actual, bindings);
  }
  if (isSseTranscript(answer.text)) return transcriptMismatches(parseSseTranscript(answer.text), printed, bindings);
  return tableMismatches(answer.text, printed);
}
