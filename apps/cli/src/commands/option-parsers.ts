import { InvalidArgumentError } from 'commander';

/** A whole number option (`--after 12`, `--limit 50`): plain decimal digits, as the gateway takes them. */
export function wholeNumber(text: string): number {
  if (!/^\d{1,15}$/.test(text)) throw new InvalidArgumentError('must be a whole number (decimal digits)');
  return Number(text);
}

/** A positive duration in seconds (`--wait-timeout 30`, `1.5`). */
export function seconds(text: string): number {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || value <= 0) throw new InvalidArgumentError('must be a positive number of seconds');
  return value;
}
