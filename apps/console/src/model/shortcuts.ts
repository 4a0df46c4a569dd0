/** What a key press on the page asks for, outside any field a person is typing in. */
export type ShortcutAction = 'search' | 'score' | 'go-runs' | 'go-workflows' | 'go-inbox' | 'go-dashboard' | 'help' | 'close';

/** The shortcuts as the help lists them: keys, then what they do. */
export const SHORTCUTS: ReadonlyArray<readonly [string, string]> = [
  ['/', 'search runs'],
  ['g r', 'go to runs'],
  ['g d', 'go to the overview'],
  ['g w', 'go to workflows'],
  ['g i', 'go to the inbox'],
  ['s', 'score the run, or the selected span (on a run)'],
  ['← / →', 'step the replay back / forward (on a run)'],
  ['space', 'play or pause the replay (on a run)'],
  ['?', 'show or hide this help'],
  ['esc', 'close'],
];

/** A chord's second key must follow within this long. */
export const CHORD_MS = 1_000;

const AFTER_G: Record<string, ShortcutAction> = { r: 'go-runs', w: 'go-workflows', i: 'go-inbox', d: 'go-dashboard' };

/**
 * Reads keys one at a time: single keys act at once, `g` waits for its second key. Pure, so the
 * timing of a chord is a parameter, not a clock.
 */
export function createShortcutReader() {
  let pendingSince: number | undefined;
  return (key: string, now: number): ShortcutAction | undefined => {
    const chord = pendingSince !== undefined && now - pendingSince <= CHORD_MS;
    pendingSince = undefined;
    if (chord) return AFTER_G[key];
    switch (key) {
      case '/':
        return 'search';
      case 's':
        return 'score';
      case '?':
        return 'help';
      case 'Escape':
        return 'close';
      case 'g':
        pendingSince = now;
        return undefined;
      default:
        return undefined;
    }
  };
}

/** Whether a key press belongs to what has the focus (a field, a list, an editor) rather than to the page. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  return ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}
