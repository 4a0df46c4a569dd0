import { useState } from 'react';

/** A JSON value pretty-printed, each object and array foldable; open down to `openDepth`. */
export function JsonTree({ value, openDepth = 2 }: { value: unknown; openDepth?: number }) {
  return (
    <div className="json-tree">
      <JsonNode value={value} depth={0} openDepth={openDepth} />
    </div>
  );
}

function JsonNode({ value, depth, openDepth, name }: { value: unknown; depth: number; openDepth: number; name?: string }) {
  const label = name !== undefined ? <span className="json-key">{JSON.stringify(name)}: </span> : null;
  if (value === null || typeof value !== 'object') {
    return (
      <div className="json-line">
        {label}
        <span className={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value) ?? 'undefined'}</span>
      </div>
    );
  }
  const entries: Array<[string | undefined, unknown]> = Array.isArray(value)
    ? value.map((v) => [undefined, v])
    : Object.entries(value as Record<string, unknown>);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0)
    return (
      <div className="json-line">
        {label}
        {open}
        {close}
      </div>
    );
  return (
    <details open={depth < openDepth}>
      <summary>
        {label}
        {open}
        <span className="muted json-count"> {entries.length} </span>
      </summary>
      <div className="json-children">
        {entries.map(([key, v], i) => (
          <JsonNode key={key ?? i} name={key} value={v} depth={depth + 1} openDepth={openDepth} />
        ))}
      </div>
      <div className="json-line">{close}</div>
    </details>
  );
}

/** Long text shows its start, with the rest one click away. */
export function LongText({ text, limit = 600 }: { text: string; limit?: number }) {
  const [whole, setWhole] = useState(false);
  if (text.length <= limit || whole) return <div className="message-text">{text}</div>;
  return (
    <div className="message-text">
      {text.slice(0, limit)}…{' '}
      <button type="button" className="link" onClick={() => setWhole(true)}>
        show all {text.length.toLocaleString()} characters
      </button>
    </div>
  );
}
