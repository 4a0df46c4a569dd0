import { costLabel, type Usage } from '@spindle/contracts';

export const ms = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
export const usd = (value: number | null | undefined) => (value ? `$${value.toFixed(value < 0.01 ? 5 : 3)}` : '–');

/** The usage's cost label (`unpriced`, never `$0`, for calls without a price); `–` when there is no usage. */
export const cost = (usage: Pick<Usage, 'costUsd' | 'unpricedCalls'> | null | undefined) => (usage ? costLabel(usage) : '–');

/** `120 in (80 cached) / 40 out (12 reasoning)`: the parts shown where the provider reported them. */
export function tokenSplit(usage: {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  reasoningTokens?: number;
}): string {
  const cached = usage.cachedInputTokens ? ` (${usage.cachedInputTokens} cached)` : '';
  const reasoning = usage.reasoningTokens ? ` (${usage.reasoningTokens} reasoning)` : '';
  return `${usage.inputTokens} in${cached} / ${usage.outputTokens} out${reasoning}`;
}
export const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleTimeString() : '–');
export const json = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2));
