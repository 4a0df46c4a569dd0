import { type Actor, actorLabel } from '@spindle/contracts';
import { spanKey, type SpanPatch } from '@spindle/projections';
import type { RunView } from './run-view.types';

/**
 * What each span holds (input, output, error, usage, model, node type) is what the trace recorder
 * stores for it, from the same fold of the events (`projectEvents`): the console draws the tree,
 * the waits and the branches, the recorder decides the content. The trace draws no branches.
 */
export function withRecordedContent(view: RunView, recorded: ReadonlyMap<string, SpanPatch>): void {
  if (view.runId === undefined) return;
  for (const span of view.spans) {
    const patch = span.kind === 'branch' ? undefined : recorded.get(spanKey(view.runId, span.spanId));
    if (!patch) continue;
    const { input, error, usage, model, nodeType } = patch;
    const output = span.kind === 'request' ? withAnswererNamed(patch.output) : patch.output;
    Object.assign(
      span,
      Object.fromEntries(Object.entries({ input, output, error, usage, model, nodeType }).filter(([, v]) => v !== undefined)),
    );
  }
}

/** A person reads who answered as a name, not as the recorded actor. */
function withAnswererNamed(output: unknown): unknown {
  if (typeof output !== 'object' || output === null || !('answeredBy' in output)) return output;
  return { ...output, answeredBy: actorLabel(output.answeredBy as Actor | string) };
}
