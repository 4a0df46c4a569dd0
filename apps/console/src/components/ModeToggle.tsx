/** A few buttons of which one is on: how a pane is shown (spans / lanes / events, agents / compiled, form / JSON). */
export function ModeToggle<M extends string>(props: {
  label: string;
  className: string;
  modes: ReadonlyArray<readonly [M, string]>;
  value: M;
  onChange: (mode: M) => void;
}) {
  return (
    <span className={props.className} role="group" aria-label={props.label}>
      {props.modes.map(([mode, text]) => (
        <button key={mode} className={props.value === mode ? 'active' : ''} onClick={() => props.onChange(mode)}>
          {text}
        </button>
      ))}
    </span>
  );
}
