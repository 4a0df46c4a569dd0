export const ms = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
export const usd = (value: number | null | undefined) => (value ? `$${value.toFixed(value < 0.01 ? 5 : 3)}` : '–');
export const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleTimeString() : '–');
export const json = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2));
