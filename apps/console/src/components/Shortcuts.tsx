import { useEffect, useRef, useState } from 'react';
import { createShortcutReader, isTypingTarget, SHORTCUTS } from '../model/shortcuts';
import { navigate } from '../router';

/** The page-wide shortcuts (a run's replay keys are its own), and the help they open with `?`. */
export function Shortcuts() {
  const [help, setHelp] = useState(false);
  // The page the help was opened on. A shortcut's navigation sets the hash at once but its
  // `hashchange` comes a task later: a `?` pressed in between must not be closed by it.
  const openedOn = useRef<string | undefined>(undefined);
  const showHelp = (shown: boolean) => {
    openedOn.current = shown ? location.hash : undefined;
    setHelp(shown);
  };
  const close = () => showHelp(false);
  useEffect(() => {
    const read = createShortcutReader();
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target)) return;
      const action = read(e.key, e.timeStamp);
      if (!action) return;
      e.preventDefault();
      if (action === 'help') return showHelp(openedOn.current === undefined);
      if (action === 'close') return showHelp(false);
      if (action === 'search') return focusSearch();
      // A run page's score form; elsewhere `s` does nothing.
      if (action === 'score') return document.getElementById('score-name')?.focus();
      navigate({ 'go-runs': '/runs', 'go-workflows': '/workflows', 'go-inbox': '/inbox', 'go-dashboard': '/overview' }[action]);
    };
    // The help is about the page it was opened on: any navigation (a link, a shortcut, back) away from it closes it.
    const onRoute = () => {
      if (location.hash !== openedOn.current) showHelp(false);
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('hashchange', onRoute);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('hashchange', onRoute);
    };
  }, []);
  if (!help) return null;
  return (
    <div className="overlay" role="dialog" aria-label="keyboard shortcuts" onClick={close}>
      <div className="help" onClick={(e) => e.stopPropagation()}>
        <h2>Keyboard shortcuts</h2>
        <table>
          <tbody>
            {SHORTCUTS.map(([keys, what]) => (
              <tr key={keys}>
                <td>
                  <kbd>{keys}</kbd>
                </td>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
    </div>
  );
}

/** The runs search, from anywhere: the runs page opens first when another is shown. */
function focusSearch() {
  const field = document.getElementById('search');
  if (field) return field.focus();
  navigate('/runs');
  // The runs page renders after the hash change is handled: look for its field for a second of frames.
  let frames = 60;
  const tryFocus = () => {
    const shown = document.getElementById('search');
    if (shown) shown.focus();
    else if (--frames > 0) requestAnimationFrame(tryFocus);
  };
  requestAnimationFrame(tryFocus);
}
