import { truncate } from './text-table';

const ESC = '\x1b[';
export const HIDE_CURSOR = `${ESC}?25l`;
export const SHOW_CURSOR = `${ESC}?25h`;
/** Clears from the cursor to the end of the screen: each redraw starts with it. */
export const CLEAR_BELOW = `${ESC}0J`;

/**
 * What to write to replace the previous frame (`previousHeight` lines, the cursor on the line
 * below it) with `lines`: move up, clear, draw. Lines are cut to the terminal's width so none
 * wraps (a wrapped line would break the count), and a frame taller than the screen keeps its
 * first line and its last ones, since the cursor cannot move above the top of the screen.
 */
export function redrawFrame(previousHeight: number, lines: readonly string[], size: { columns: number; rows: number }): string {
  const fitted = fitToScreen(lines, size.rows).map((line) => truncate(line, Math.max(1, size.columns - 1)));
  const up = previousHeight > 0 ? `${ESC}${previousHeight}A\r` : '\r';
  return `${up}${CLEAR_BELOW}${fitted.join('\n')}\n`;
}

/** The number of lines `redrawFrame` draws for `lines` on a screen of `rows` rows. */
export function frameHeight(lines: readonly string[], rows: number): number {
  return fitToScreen(lines, rows).length;
}

function fitToScreen(lines: readonly string[], rows: number): string[] {
  const room = Math.max(3, rows - 1);
  if (lines.length <= room) return [...lines];
  const tail = lines.slice(lines.length - (room - 2));
  return [lines[0], `  … ${lines.length - 1 - tail.length} more above`, ...tail];
}

/** Writes frames in place on a terminal, at most one per `intervalMs`, the last one always. */
export class InPlaceFrames {
  private height = 0;
  /** The next frame, drawn when the interval allows: computed then, so skipped frames cost nothing. */
  private pending: (() => readonly string[]) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly intervalMs = 80,
  ) {
    out.write(HIDE_CURSOR);
  }

  show(render: () => readonly string[]): void {
    this.pending = render;
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Draws what is pending now and gives the cursor back. */
  finish(): void {
    this.flush();
    this.out.write(SHOW_CURSOR);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending) return;
    const lines = this.pending();
    const size = { columns: this.out.columns || 100, rows: this.out.rows || 40 };
    this.out.write(redrawFrame(this.height, lines, size));
    this.height = frameHeight(lines, size.rows);
    this.pending = undefined;
  }
}
