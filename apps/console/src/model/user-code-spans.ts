import { costLabel } from '@spindle/contracts';
import type { Fact } from './context-spans';
import type { RunView, SpanView } from './run-view';

/** What user code said while a span ran: its own custom events, reported usage and failed tries, and its tool calls'. */
export function userCodeSaid(span: SpanView, view: RunView): SpanView[] {
  const said: SpanView[] = [];
  const walk = (s: SpanView) => {
    for (const key of s.children) {
      const child = view.byKey.get(key);
      if (!child) continue;
      if (child.kind === 'custom' || child.kind === 'usage' || child.kind === 'attempt') said.push(child);
      else if (child.kind === 'tool') walk(child);
    }
  };
  walk(span);
  return said.sort((a, b) => a.startSeq - b.startSeq);
}

/**
 * One line per thing said: a custom event's name, a report's cost with its label and units, a
 * failed try's number, error and wait before the next.
 */
export function userCodeFacts(span: SpanView): Fact[] | undefined {
  const input = (span.input ?? {}) as Record<string, unknown>;
  const output = (span.output ?? {}) as Record<string, unknown>;
  const source = (input.source ?? input) as { kind?: string; name?: string; callId?: string };
  const by: Fact = ['by', `${String(source.kind)} ${String(source.name)}${source.callId ? ` (call ${source.callId})` : ''}`];
  if (span.kind === 'custom') return [['event', String(span.nodeType)]];
  if (span.kind === 'usage') {
    const units = input.units as Record<string, number> | undefined;
    return [
      by,
      ['cost', span.usage?.costUsd === undefined ? 'none reported' : costLabel(span.usage)],
      ...(span.usage && span.usage.totalTokens > 0
        ? [['tokens', `${span.usage.inputTokens} in, ${span.usage.outputTokens} out`] as const]
        : []),
      ...(units && Object.keys(units).length > 0
        ? [
            [
              'units',
              Object.entries(units)
                .map(([name, n]) => `${n} ${name}`)
                .join(', '),
            ] as const,
          ]
        : []),
      ...(typeof input.label === 'string' ? [['label', input.label] as const] : []),
    ];
  }
  if (span.kind === 'attempt')
    return [
      by,
      ['attempt', String(input.attempt)],
      ['error', span.error ? `${span.error.code}: ${span.error.message}` : 'unknown'],
      ['retry in', `${String(output.retryInMs)} ms`],
    ];
  return undefined;
}

/** A one-line summary of one thing said, for the list under its node. */
export function saidLine(span: SpanView): string {
  const facts = new Map(userCodeFacts(span) ?? []);
  if (span.kind === 'custom') return `event ${span.label}`;
  if (span.kind === 'usage')
    return [`spent ${facts.get('cost')}`, facts.get('units'), facts.get('label') && `(${facts.get('label')})`].filter(Boolean).join(' ');
  return `try ${facts.get('attempt')} failed: ${facts.get('error')}, retried in ${facts.get('retry in')}`;
}
