/** One line of the bench table: what was measured, and the figure. */
export type BenchRow = [string, string];

/** How a section of the bench ended. */
export type SectionOutcome = { ok: true } | { ok: false; skipped: boolean; reason: string };

/**
 * The bench's table, printed as it is measured: each section's rows go out the moment the section
 * ends, so a section that fails (or whose tool is missing) loses none of the figures before it.
 * The whole table is printed once more at the end, aligned, with a line per section not measured.
 */
export class BenchReport {
  private readonly rows: BenchRow[] = [];
  private readonly notMeasured: Array<{ title: string; skipped: boolean; reason: string }> = [];
  private readonly keys: string[] = [];
  readonly results: Record<string, unknown> = Object.create(null) as Record<string, unknown>;

  constructor(
    private readonly print: (line: string) => void = (line) => console.log(line),
    /** The sections to run (`npm run bench -- --only masking,scrub`); every one when undefined. */
    private readonly only?: ReadonlySet<string>,
  ) {}

  /**
   * Runs one section: `missing` names a tool the section needs and this machine lacks (the section
   * is skipped with that line); `measure` returns the figures and the rows that show them.
   */
  async section<T>(
    key: string,
    title: string,
    measure: () => Promise<{ result: T; rows: BenchRow[] }> | { result: T; rows: BenchRow[] },
    missing?: () => string | undefined,
  ): Promise<T | undefined> {
    this.keys.push(key);
    if (this.only && !this.only.has(key)) return undefined;
    const lacking = missing?.();
    if (lacking) return void this.leaveOut(title, true, lacking);
    this.print(`bench: ${title}…`);
    try {
      const { result, rows } = await measure();
      this.results[key] = result;
      for (const row of rows) this.print(`  ${row[0]}  ${row[1]}`);
      this.rows.push(...rows);
      return result;
    } catch (e) {
      return void this.leaveOut(title, false, e instanceof Error ? e.message : String(e));
    }
  }

  /** Whether a section failed (a skipped one did not: its tool is missing here). */
  get anyFailed(): boolean {
    return this.notMeasured.some((n) => !n.skipped) || [...(this.only ?? [])].some((key) => !this.keys.includes(key));
  }

  /** The whole table, aligned, then one line per section that was skipped or failed. */
  table(): string {
    const width = Math.max(0, ...this.rows.map(([k]) => k.length));
    const lines = this.rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
    for (const n of this.notMeasured) lines.push(`${n.skipped ? 'skipped' : 'FAILED'}: ${n.title}: ${n.reason}`);
    const unknown = [...(this.only ?? [])].filter((key) => !this.keys.includes(key));
    if (unknown.length > 0) lines.push(`FAILED: --only names no section ${unknown.join(', ')} (the sections: ${this.keys.join(', ')})`);
    return lines.join('\n');
  }

  private leaveOut(title: string, skipped: boolean, reason: string): void {
    this.notMeasured.push({ title, skipped, reason });
    this.print(`bench: ${skipped ? 'skipping' : 'FAILED'} ${title}: ${reason}`);
  }
}

/** The sections `--only a,b` asks for in `argv`, or undefined for all of them. */
export function onlySections(argv: readonly string[]): ReadonlySet<string> | undefined {
  const at = argv.indexOf('--only');
  if (at < 0) return undefined;
  return new Set((argv[at + 1] ?? '').split(',').filter((key) => key !== ''));
}
