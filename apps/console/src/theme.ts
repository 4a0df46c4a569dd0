/** The console's colours: the system's preference, unless the person picked light or dark (kept in this browser). */
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'spindle.theme';
const darkQuery = () => window.matchMedia('(prefers-color-scheme: dark)');

export function themeChoice(): ThemeChoice {
  const stored = localStorage.getItem(KEY);
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

/** The theme the page shows now. */
export function shownTheme(choice = themeChoice()): 'light' | 'dark' {
  return choice === 'system' ? (darkQuery().matches ? 'dark' : 'light') : choice;
}

export function applyTheme(): void {
  document.documentElement.dataset.theme = shownTheme();
}

export function chooseTheme(choice: ThemeChoice): void {
  if (choice === 'system') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, choice);
  applyTheme();
}

/** Applies the theme now and follows the system's preference while the person has not picked one. */
export function followSystemTheme(): void {
  applyTheme();
  darkQuery().addEventListener('change', applyTheme);
}
