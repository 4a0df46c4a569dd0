import { costLabel, humanDuration, type Usage } from '@spindle/contracts';

/** A duration for people (`259 ms`, `4.1 s`, `20 min 10 s`): the console's one duration formatter. */
export const ms = (value: number | null | undefined) => (value === null || value === undefined ? '–' : humanDuration(value));
export const usd = (value: number | null | undefined) => (value ? `$${value.toFixed(value < 0.01 ? 5 : 3)}` : '–');

/**
 * The usage's cost label (`unpriced`, never `$0`, for calls without a price); `–` when there is no usage, or when no model
 * call has finished yet (no tokens, no cost, no unpriced call): `unpriced` only says a finished call had no price.
 */
export const cost = (usage: (Pick<Usage, 'costUsd' | 'unpricedCalls'> & { totalTokens?: number }) | null | undefined) =>
  !usage || (usage.totalTokens === 0 && usage.costUsd === undefined && !usage.unpricedCalls) ? '–' : costLabel(usage);

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

/** `2026-12-01 18:40:12` in the browser's zone: sortable by eye, with its date. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return `${date} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** `just now`, `5 min ago`, `3 h ago`, `2 d ago` (or `in …` for a clock ahead of this one). */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  const ahead = seconds < 0;
  const s = Math.abs(seconds);
  const amount =
    s < 45 ? undefined : s < 3600 ? `${Math.round(s / 60)} min` : s < 86_400 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86_400)} d`;
  if (!amount) return 'just now';
  return ahead ? `in ${amount}` : `${amount} ago`;
}
export const json = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2));
