import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const DIR = resolve(__dirname, '../../../tmp/figures');

/**
 * Keeps figures a test run produced (fuzz counts, say) in tmp/figures/<name>.json, so a report
 * generated later (the chaos run's docs/reliability.md) shows what that run measured.
 */
export function recordFigures(name: string, figures: Record<string, unknown>): void {
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, `${name}.json`), JSON.stringify({ recordedAt: new Date().toISOString(), ...figures }, null, 2));
}

/** Every recorded set of figures, by name. */
export function recordedFigures(): Record<string, Record<string, unknown>> {
  try {
    return Object.fromEntries(
      readdirSync(DIR)
        .filter((f) => f.endsWith('.json'))
        .map((f) => [f.slice(0, -5), JSON.parse(readFileSync(join(DIR, f), 'utf8'))]),
    );
  } catch {
    return {};
  }
}
