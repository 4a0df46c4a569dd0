import type { FakeOpenAIReply } from '@spindle/testing';

/**
 * The chaos run's workflows. Every model prompt carries a marker `[chaos:<tag>:<step>]` (the
 * run's tag from its input, the step that asks), so a call at the provider can be matched to
 * the model span of the log that recorded it.
 */
const MODEL = 'compatible:chaos';
const ask = (id: string, step: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'llm',
  model: MODEL,
  prompt: `[chaos:{{input.tag}}:${step}] ${step}?`,
  output_key: id,
  ...extra,
});

export const chaosWorkflows: Record<string, unknown> = {
  'chaos-chain': {
    kind: 'graph',
    nodes: [ask('plan', 'plan'), ask('draft', 'draft'), ask('polish', 'polish')],
    edges: [
      { from: 'plan', to: 'draft' },
      { from: 'draft', to: 'polish' },
    ],
  },
  'chaos-fork': {
    kind: 'graph',
    nodes: [
      {
        id: 'panel',
        type: 'fork',
        branches: {
          left: { nodes: [ask('left_view', 'left')] },
          right: { nodes: [ask('right_view', 'right')] },
        },
      },
      ask('verdict', 'verdict'),
    ],
    edges: [{ from: 'panel', to: 'verdict' }],
  },
  'chaos-agent': {
    kind: 'graph',
    nodes: [
      {
        id: 'solver',
        type: 'agent',
        model: MODEL,
        instructions: '[chaos:{{input.tag}}:solver] Use the calculator.',
        prompt: 'What is 2 + 3?',
        tools: ['calculator'],
        max_turns: 4,
      },
    ],
  },
  'chaos-review': {
    kind: 'graph',
    nodes: [
      ask('proposal', 'proposal'),
      { id: 'review', type: 'human', prompt: 'Ship {{proposal}}?' },
      { id: 'ship', type: 'set', values: { shipped: true } },
    ],
    edges: [
      { from: 'proposal', to: 'review' },
      { from: 'review', to: 'ship' },
    ],
  },
  'chaos-loop': {
    kind: 'graph',
    nodes: [
      {
        id: 'rounds',
        type: 'loop',
        max_steps: 3,
        body: {
          nodes: [
            { id: 'count', type: 'function', function: 'increment', args: { key: 'round_no' } },
            ask('round', 'round-{{round_no}}', { output_key: 'last_round' }),
          ],
          edges: [{ from: 'count', to: 'round' }],
        },
      },
    ],
  },
};

const MARKER = /\[chaos:([^\]\s]+)\]/;

/** One model call as the provider saw it: which step of which run, and how far into its conversation. */
export interface ProviderCall {
  key: string;
  at: number;
}

/**
 * The fake provider's behaviour: a short, varying latency (a longer one for runs whose tag holds
 * `slow.marker`); an agent asked with tools calls the calculator once, then answers. Records
 * every call it receives.
 */
export function chaosProvider(calls: ProviderCall[], fast: [number, number], slow: { marker: string; latencyMs: [number, number] }) {
  let n = 0;
  return (body: unknown): FakeOpenAIReply => {
    const request = body as { messages?: Array<{ role: string; content: unknown }>; tools?: unknown[] };
    const messages = request.messages ?? [];
    const marker = messages.map((m) => textOf(m.content).match(MARKER)?.[1]).find(Boolean) ?? 'unmarked';
    const turn = messages.filter((m) => m.role !== 'system').length;
    calls.push({ key: `${marker}#${turn}`, at: Date.now() });
    const latencyMs = marker.includes(slow.marker) ? slow.latencyMs : fast;
    const delayMs = latencyMs[0] + ((n++ * 37) % Math.max(1, latencyMs[1] - latencyMs[0]));
    const answered = messages.some((m) => m.role === 'tool');
    if (request.tools?.length && !answered)
      return { text: '', toolCalls: [{ name: 'calculator', arguments: { expression: '2 + 3' } }], delayMs };
    return { text: `done ${marker}`, delayMs };
  };
}

/** The provider-side key of a model span in the log: its step's marker and its conversation length. */
export function markerOf(text: string | undefined): string | undefined {
  return text?.match(MARKER)?.[1];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join(' ');
  return '';
}
