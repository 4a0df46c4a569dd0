import { useState } from 'react';
import { chooseTheme, themeChoice, type ThemeChoice } from '../theme';

const NEXT: Record<ThemeChoice, ThemeChoice> = { system: 'dark', dark: 'light', light: 'system' };
const LABEL: Record<ThemeChoice, string> = { system: '◐ system', dark: '☾ dark', light: '☀ light' };

/** Cycles the theme: the system's, dark, light. */
export function ThemeToggle() {
  const [choice, setChoice] = useState(themeChoice);
  return (
    <button
      type="button"
      className="theme-toggle"
      data-testid="theme-toggle"
      title={`Theme: ${choice} (click for ${NEXT[choice]})`}
      onClick={() => {
        chooseTheme(NEXT[choice]);
        setChoice(NEXT[choice]);
      }}
    >
      {LABEL[choice]}
    </button>
  );
}
