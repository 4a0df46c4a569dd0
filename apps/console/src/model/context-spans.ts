import type { SpanView } from './run-view';

/** One line of a context or memory span's detail: a label and its value. */
export type Fact = readonly [label: string, value: string];

/**
 * What a `context` span (a cut to fit the prompt's budget) or a `memory` span (a compaction of a
 * remembered conversation) says, read from the trace's fields: which part, tokens before → after,
 * how it was cut; for a compaction, messages before → after and the summary's model.
 */
export function budgetFacts(span: SpanView): Fact[] | undefined {
  const input = (span.input ?? {}) as Record<string, unknown>;
  const output = (span.output ?? {}) as Record<string, unknown>;
  const change = (before: unknown, after: unknown, unit: string) => `${String(before)} → ${String(after)} ${unit}`;
  if (span.kind === 'context')
    return [
      ['part', `${String(input.kind)} ${String(input.target)}`],
      ['tokens', change(output.tokensBefore, output.tokensAfter, 'tokens')],
      ['strategy', String(input.strategy)],
      ...(output.droppedMessages !== undefined ? [['dropped', `${String(output.droppedMessages)} messages`] as const] : []),
    ];
  if (span.kind === 'memory')
    return [
      ['memory', String(input.memoryKey)],
      ['trigger', String(input.trigger)],
      ['messages', change(input.messagesBefore, output.messagesAfter, 'messages')],
      ['tokens', change(input.tokensBefore, output.tokensAfter, 'tokens')],
      ...(output.summaryModel !== undefined ? [['summarized by', String(output.summaryModel)] as const] : []),
    ];
  return undefined;
}

/** A compaction's summary, when a model wrote one. */
export function compactionSummary(span: SpanView): string | undefined {
  const summary = span.kind === 'memory' ? (span.output as { summary?: unknown } | undefined)?.summary : undefined;
  return typeof summary === 'string' ? summary : undefined;
}
