import { useState } from 'react';

/**
 * An id in full (its tail first catches the eye) with a button that copies it; clicking it never
 * opens the row. A run id links to its run; any other id (`what`: a schedule's, a thread's…) is
 * shown where it already is, so it links nowhere.
 */
export function CopyId({ id, what = 'run' }: { id: string; what?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = (e: React.MouseEvent) => {
    e.stopPropagation();
    void navigator.clipboard?.writeText(id).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1200);
    });
  };
  return (
    <span className="copy-id">
      {what === 'run' ? (
        <a href={`#/runs/${id}`} className="mono" title={id} onClick={(e) => e.stopPropagation()}>
          {id}
        </a>
      ) : (
        <span className="mono">{id}</span>
      )}
      <button type="button" className="icon" onClick={copy} aria-label={`copy ${what} id ${id}`} title={`Copy the ${what} id`}>
        {copied ? 'copied' : 'copy'}
      </button>
    </span>
  );
}
