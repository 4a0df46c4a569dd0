import { describe, expect, it } from 'vitest';
import { catalogAgentOf, pinLabel } from './agent-pins';
import type { SpanView } from './run-view';

const span = (kind: SpanView['kind'], input: unknown) => ({ kind, input }) as SpanView;

describe('agent pins in the console', () => {
  it('reads the catalog agent and version a node ran from its input', () => {
    expect(catalogAgentOf(span('node', { model: 'offline:echo', agent: { name: 'writer', version: 3 } }))).toBe('writer v3');
    expect(catalogAgentOf(span('node', { model: 'offline:echo' }))).toBeUndefined();
    expect(catalogAgentOf(span('tool', { agent: { name: 'writer', version: 3 } }))).toBeUndefined();
    expect(catalogAgentOf(span('node', { agent: { name: 'writer', version: '3' } }))).toBeUndefined();
  });

  it('labels a pin: a version, a parameter that chooses one, or nothing for the latest', () => {
    expect(pinLabel(2)).toBe('v2');
    expect(pinLabel({ parameter: 'writer_version' })).toBe('v from writer_version');
    expect(pinLabel(undefined)).toBeUndefined();
    expect(pinLabel(null)).toBeUndefined();
  });
});
